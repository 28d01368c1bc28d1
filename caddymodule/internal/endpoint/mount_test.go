package endpoint

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/internal/moduletest"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestMountRegistersEveryService(t *testing.T) {
	s := rpccore.NewServer()
	err := mount(s, []mountedService{{"handler_test", moduletest.Methods{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Methods()) != 5 {
		t.Errorf("methods %v", s.Methods())
	}
}

func TestMountRefusesDuplicates(t *testing.T) {
	s := rpccore.NewServer(rpccore.WithMethodFilter(func(string) bool { return false }))
	err := mount(s, []mountedService{{"a", moduletest.Echo{}}, {"b", moduletest.Echo{}}})
	if err == nil || !strings.Contains(err.Error(), `method "echo" is registered twice: by service a and by service b`) {
		t.Errorf("error %v", err)
	}
}

func TestServiceErrorIsOneLineAndUnwraps(t *testing.T) {
	s := rpccore.NewServer()
	dup := duplicateService{}
	err := mount(s, []mountedService{{"dup", dup}})
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "service dup: ") {
		t.Errorf("error %q", err)
	}
	if !errors.Is(err, rpccore.ErrDuplicateMethod) {
		t.Errorf("error %v does not wrap ErrDuplicateMethod", err)
	}
}

func TestServiceName(t *testing.T) {
	if got := serviceName("jsonrpc.services.demo"); got != "demo" {
		t.Errorf("serviceName: %q", got)
	}
}

// duplicateService registers one name twice itself.
type duplicateService struct{}

func (duplicateService) RegisterMethods(s *rpccore.Server) error {
	m := func() *rpccore.Method { return rpccore.Proc0(func(ctx context.Context) error { return nil }) }
	if err := s.Register("x", m()); err != nil {
		return err
	}
	return s.Register("x", m())
}
