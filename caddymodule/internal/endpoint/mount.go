package endpoint

// mount.go mounts the services an endpoint names, refusing method names
// registered twice.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// mountedService is a loaded service and the name it was mounted under.
type mountedService struct {
	name string
	svc  caddymodule.Service
}

// asServices checks that the loaded modules are services.
func asServices(mods []any) ([]mountedService, error) {
	out := make([]mountedService, 0, len(mods))
	for _, m := range mods {
		id := string(m.(caddy.Module).CaddyModule().ID)
		svc, ok := m.(caddymodule.Service)
		if !ok {
			return nil, fmt.Errorf("module %s is not a jsonrpc service: it has no RegisterMethods method", id)
		}
		out = append(out, mountedService{name: serviceName(id), svc: svc})
	}
	return out, nil
}

// serviceName is the name of a service module: its ID without the namespace.
func serviceName(id string) string {
	return caddy.ModuleID(id).Name()
}

// mount registers the methods of every service into s, once each. A name
// that a service registers after another (hidden by the method filter or
// not) is reported with both services' names.
func mount(s *rpccore.Server, services []mountedService) error {
	owner := make(map[string]string)
	for _, ms := range services {
		err := ms.svc.RegisterMethods(s)
		var dup *rpccore.DuplicateMethodError
		if errors.As(err, &dup) {
			switch other, ok := owner[dup.Method]; {
			case ok && other == ms.name:
				return fmt.Errorf("method %q is registered twice: service %s is mounted twice", dup.Method, ms.name)
			case ok:
				return fmt.Errorf("method %q is registered twice: by service %s and by service %s", dup.Method, other, ms.name)
			}
		}
		if err != nil {
			return &serviceError{service: ms.name, err: err}
		}
		for _, name := range s.Registered() {
			if _, known := owner[name]; !known {
				owner[name] = ms.name
			}
		}
	}
	return nil
}

// serviceError is a service's failure to register its methods, on one line.
type serviceError struct {
	service string
	err     error
}

func (e *serviceError) Error() string {
	return "service " + e.service + ": " + strings.ReplaceAll(e.err.Error(), "\n", ": ")
}

func (e *serviceError) Unwrap() error { return e.err }
