package tests

// docs_options_test.go holds the reference tables of the documentation to
// the code: each `docs:options MODULE` table lists exactly the JSON fields
// of that Caddy module, and every default that a table ties to a Go
// constant is that constant's value.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/dustin/go-humanize"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/local"
	natshub "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/upstream"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpcclient"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// documentedConstants are the constants the tables name, by the name they
// give them.
var documentedConstants = map[string]any{
	"rpccore.DefaultMaxRequestBytes":      rpccore.DefaultMaxRequestBytes,
	"rpccore.DefaultMaxBatch":             rpccore.DefaultMaxBatch,
	"rpccore.DefaultMaxResponseBytes":     rpccore.DefaultMaxResponseBytes,
	"rpccore.DefaultMaxDepth":             rpccore.DefaultMaxDepth,
	"rpccore.DefaultBatchConcurrency":     rpccore.DefaultBatchConcurrency,
	"rpccore.DefaultMaxInFlight":          rpccore.DefaultMaxInFlight,
	"rpccore.DefaultSendQueue":            rpccore.DefaultSendQueue,
	"rpccore.DefaultMaxSubscriptions":     rpccore.DefaultMaxSubscriptions,
	"rpccore.DefaultCallTimeout":          rpccore.DefaultCallTimeout,
	"rpccore.DefaultShutdownGrace":        rpccore.DefaultShutdownGrace,
	"rpccore.DefaultWriteTimeout":         rpccore.DefaultWriteTimeout,
	"rpccore.DefaultPingInterval":         rpccore.DefaultPingInterval,
	"rpccore.DefaultMaxConnections":       rpccore.DefaultMaxConnections,
	"openrpc.DefaultTitle":                openrpc.DefaultTitle,
	"openrpc.DefaultVersion":              openrpc.DefaultVersion,
	"policy.DefaultRateLimitKey":          policy.DefaultRateLimitKey,
	"policy.DefaultRateLimitMaxKeys":      policy.DefaultRateLimitMaxKeys,
	"policy.DefaultRateLimitSyncInterval": policy.DefaultRateLimitSyncInterval,
	"policy.MinRateLimitSyncInterval":     policy.MinRateLimitSyncInterval,
	"local.DefaultHistoryMsgs":            local.DefaultHistoryMsgs,
	"natshub.DefaultURL":                  natshub.DefaultURL,
	"natshub.DefaultSubjectPrefix":        natshub.DefaultSubjectPrefix,
	"natshub.DefaultHistoryMsgs":          natshub.DefaultHistoryMsgs,
	"natshub.DefaultPublishTimeout":       natshub.DefaultPublishTimeout,
	"natshub.DefaultMaxPending":           natshub.DefaultMaxPending,
	"upstream.DefaultTimeout":             upstream.DefaultTimeout,
	"upstream.DefaultMaxResponse":         upstream.DefaultMaxResponse,
	"upstream.DefaultMaxBatch":            upstream.DefaultMaxBatch,
	"upstream.DefaultHealthInterval":      upstream.DefaultHealthInterval,
	"upstream.DefaultHealthMethod":        upstream.DefaultHealthMethod,
	"upstream.DefaultFailDuration":        upstream.DefaultFailDuration,
	"rpcclient.DefaultMaxMessage":         rpcclient.DefaultMaxMessage,
	"rpcclient.DefaultBackoffMin":         rpcclient.DefaultBackoffMin,
	"rpcclient.DefaultBackoffMax":         rpcclient.DefaultBackoffMax,
	"rpcclient.DefaultMaxResends":         rpcclient.DefaultMaxResends,
	"rpcclient.DefaultMaxServerCalls":     rpcclient.DefaultMaxServerCalls,
	"rpcclient.DefaultSubscriptionBuffer": rpcclient.DefaultSubscriptionBuffer,
}

// constantPackage is the package whose constants a module's table names
// without a package: those beside the module.
var constantPackage = map[string]string{
	"http.handlers.jsonrpc":     "policy",
	"jsonrpc":                   "policy",
	"jsonrpc.hubs.local":        "local",
	"jsonrpc.hubs.nats":         "natshub",
	"jsonrpc.services.upstream": "upstream",
}

func TestDocsOptionsAreTheModulesFields(t *testing.T) {
	tables := docTables(t, "docs:options")
	if len(tables) == 0 {
		t.Fatal("no docs:options table")
	}
	for _, tb := range tables {
		mod, err := caddy.GetModule(tb.arg)
		if err != nil {
			t.Errorf("%s:%d: %v", tb.file, tb.line, err)
			continue
		}
		want := jsonFields(reflect.TypeOf(mod.New()), "")
		var got []string
		for _, row := range tb.rows {
			if f := codeSpans(row[0]); len(f) == 1 {
				got = append(got, f[0])
			} else {
				t.Errorf("%s:%d: a row whose field is not one code span: %q", tb.file, tb.line, row[0])
			}
		}
		slices.Sort(got)
		for _, f := range want {
			if _, found := slices.BinarySearch(got, f); !found {
				t.Errorf("%s:%d: %s has the field %s, which the table lacks", tb.file, tb.line, tb.arg, f)
			}
		}
		for _, f := range got {
			if !slices.Contains(want, f) {
				t.Errorf("%s:%d: the table lists %s, which %s does not have", tb.file, tb.line, f, tb.arg)
			}
		}
	}
}

// jsonFields lists the JSON field paths of t: `a.b` for a field of an
// object, `a.*.b` of a map's values, `a[].b` of a list's elements. A field
// that holds another module (its caddy tag names a namespace), a
// json.RawMessage and a value of no fields of its own is a leaf.
func jsonFields(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		path := prefix + name
		ft, sep := f.Type, "."
		switch ft.Kind() {
		case reflect.Map:
			ft, sep = ft.Elem(), ".*."
		case reflect.Slice:
			ft, sep = ft.Elem(), "[]."
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		nested := ft.Kind() == reflect.Struct && ft != reflect.TypeFor[json.RawMessage]() &&
			!strings.Contains(f.Tag.Get("caddy"), "namespace=") && hasJSONFields(ft)
		if !nested {
			out = append(out, path)
			continue
		}
		out = append(out, jsonFields(ft, path+sep)...)
	}
	return out
}

// hasJSONFields reports whether struct type t has exported JSON fields.
func hasJSONFields(t reflect.Type) bool {
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); t.Field(i).IsExported() && name != "-" && name != "" {
			return true
		}
	}
	return false
}

func TestDocsDefaultsAreTheConstants(t *testing.T) {
	checked := 0
	for _, marker := range []string{"docs:options", "docs:defaults"} {
		for _, tb := range docTables(t, marker) {
			col := slices.Index(tb.header, "constant")
			def := slices.Index(tb.header, "default")
			if col < 0 || def < 0 {
				t.Errorf("%s:%d: the table has no default and constant columns", tb.file, tb.line)
				continue
			}
			for _, row := range tb.rows {
				names := codeSpans(row[col])
				values := codeSpans(row[def])
				if len(names) > len(values) {
					t.Errorf("%s:%d: %s names %d constants for %d defaults", tb.file, tb.line, row[0], len(names), len(values))
					continue
				}
				for i, name := range names {
					if !strings.Contains(name, ".") {
						name = constantPackage[tb.arg] + "." + name
					}
					v, ok := documentedConstants[name]
					if !ok {
						t.Errorf("%s:%d: %s is not a constant this test knows: add it to documentedConstants", tb.file, tb.line, name)
						continue
					}
					if err := sameValue(values[i], v); err != nil {
						t.Errorf("%s:%d: %s: the default %q is not %s: %v", tb.file, tb.line, row[0], values[i], name, err)
					}
					checked++
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("only %d defaults checked against their constants", checked)
	}
}

// sameValue fails unless text, as the docs write a default (5MiB, 30s,
// 1000, a string), is v.
func sameValue(text string, v any) error {
	var got any
	var err error
	switch v := v.(type) {
	case time.Duration:
		var d time.Duration
		d, err = caddy.ParseDuration(text)
		got = d
	case string:
		got = text
	case int, int64:
		var n uint64
		if strings.ContainsAny(text, "BKMGiB") {
			n, err = humanize.ParseBytes(text)
		} else {
			n, err = strconv.ParseUint(text, 10, 64)
		}
		if _, small := v.(int); small {
			got = int(n)
		} else {
			got = int64(n)
		}
	default:
		return fmt.Errorf("a constant of type %T", v)
	}
	if err != nil {
		return err
	}
	if got != v {
		return fmt.Errorf("the constant is %v", v)
	}
	return nil
}
