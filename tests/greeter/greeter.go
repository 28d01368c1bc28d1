// Package greeter is a JSON-RPC service for Caddy: the module
// jsonrpc.services.greeter, mounted with `service greeter`.
package greeter

import (
	"context"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(Greeter{})
}

// Greeter serves greet and introduce.
type Greeter struct{}

// CaddyModule returns the Caddy module information.
func (Greeter) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "jsonrpc.services.greeter",
		New: func() caddy.Module { return new(Greeter) },
	}
}

// RegisterMethods registers the greeter's methods into s.
func (Greeter) RegisterMethods(s *rpccore.Server) error {
	return s.RegisterMethods(rpccore.Methods{
		// greet(name, times): positional ["Ann", 2] or named {"name": "Ann"};
		// times is optional and defaults to 1. Describe adds the words that
		// rpc.discover's document carries.
		"greet": rpccore.Func2(Greet, "name", "times").Default("times", 1).Describe(rpccore.Doc{
			Summary: "Says hello to name.",
			Params:  map[string]string{"times": "How many times: 1 to 3."},
		}),
		// introduce({"name": "Ann", "age": 42}): the params are a struct's fields.
		"introduce": rpccore.Struct(Introduce),
	})
}

// Range is the data of the error Greet returns for a bad count.
type Range struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Greet says hello to name, times times (1 to 3).
func Greet(_ context.Context, name string, times int) (string, error) {
	if times < 1 || times > 3 {
		return "", &rpccore.Error{Code: 1001, Message: "times out of range", Data: Range{Min: 1, Max: 3}}
	}
	return strings.TrimSpace(strings.Repeat("Hello, "+name+"! ", times)), nil
}

// Person is the params of introduce. City is optional (a pointer).
type Person struct {
	Name string  `json:"name"`
	Age  int     `json:"age"`
	City *string `json:"city"`
}

// Introduce presents a person.
func Introduce(_ context.Context, p Person) (string, error) {
	s := p.Name + " is " + strconv.Itoa(p.Age)
	if p.City != nil {
		s += " and lives in " + *p.City
	}
	return s, nil
}

// Interface guards
var _ caddymodule.Service = (*Greeter)(nil)
