package openrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/demo"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/openrpc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// discover calls rpc.discover on s and returns the result.
func discover(t *testing.T, s *rpccore.Server, params string) []byte {
	t.Helper()
	req := `{"jsonrpc":"2.0","method":"rpc.discover","id":1` + params + `}`
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *rpccore.Error  `json:"error"`
	}
	if err := json.Unmarshal(s.Process(context.Background(), []byte(req), nil), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.Error != nil {
		t.Fatalf("rpc.discover: %v", answer.Error)
	}
	return answer.Result
}

// doc is the part of a document the tests look into.
type doc struct {
	OpenRPC string `json:"openrpc"`
	Info    struct {
		Title, Version, Description string
	} `json:"info"`
	Methods []struct {
		Name           string          `json:"name"`
		ParamStructure string          `json:"paramStructure"`
		Params         json.RawMessage `json:"params"`
	} `json:"methods"`
	Components json.RawMessage `json:"components"`
}

func parse(t *testing.T, raw []byte) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	return d
}

func (d doc) names() []string {
	var out []string
	for _, m := range d.Methods {
		out = append(out, m.Name)
	}
	return out
}

func demoServer(t *testing.T, opts ...rpccore.Option) *rpccore.Server {
	t.Helper()
	s := rpccore.NewServer(opts...)
	if err := demo.Register(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDemoDocument compares the demo's document with testdata/demo.json
// (go test -run TestDemoDocument -update rewrites it).
func TestDemoDocument(t *testing.T) {
	s := demoServer(t)
	if err := openrpc.Register(s, openrpc.Info{}); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, discover(t, s, ""), "", "\t"); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	golden := filepath.Join("testdata", "demo.json")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("the demo's document differs from %s (go test -run %s -update rewrites it):\n%s", golden, t.Name(), got.String())
	}
}

func TestDocumentListsServedMethodsInOrder(t *testing.T) {
	s := demoServer(t, rpccore.WithMethodFilter(func(name string) bool { return name != "subtract" }))
	if err := openrpc.Register(s, openrpc.Info{Title: "Demo", Version: "1.2.3", Description: "The demo."}); err != nil {
		t.Fatal(err)
	}
	d := parse(t, discover(t, s, ""))
	if d.OpenRPC != "1.3.2" || d.Info.Title != "Demo" || d.Info.Version != "1.2.3" || d.Info.Description != "The demo." {
		t.Errorf("openrpc %q, info %+v", d.OpenRPC, d.Info)
	}
	names := d.names()
	if !slices.IsSorted(names) {
		t.Errorf("methods not in order: %v", names)
	}
	want := append(s.Methods(), []string{}...)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("methods %v, want what the server serves: %v", names, want)
	}
	if slices.Contains(names, "subtract") || !slices.Contains(names, "rpc.discover") {
		t.Errorf("the hidden subtract is listed, or rpc.discover is not: %v", names)
	}
}

func TestDiscoverTakesNoParams(t *testing.T) {
	s := demoServer(t)
	if err := openrpc.Register(s, openrpc.Info{}); err != nil {
		t.Fatal(err)
	}
	plain := discover(t, s, "")
	for _, params := range []string{`,"params":[]`, `,"params":{}`} {
		if got := discover(t, s, params); !bytes.Equal(got, plain) {
			t.Errorf("params %s: another document", params)
		}
	}
	got := string(s.Process(context.Background(), []byte(`{"jsonrpc":"2.0","method":"rpc.discover","params":[1],"id":1}`), nil))
	if !strings.Contains(got, `"code":-32602`) {
		t.Errorf("with a param: %s", got)
	}
}

func TestDocumentIsGeneratedOnce(t *testing.T) {
	s := demoServer(t)
	if err := openrpc.Register(s, openrpc.Info{}); err != nil {
		t.Fatal(err)
	}
	before := discover(t, s, "")
	if err := s.Register("later", rpccore.Proc0(func(context.Context) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if after := discover(t, s, ""); !bytes.Equal(after, before) {
		t.Error("the document changed after Register: it is generated per call")
	}
	if err := openrpc.Register(s, openrpc.Info{}); err == nil {
		t.Error("a second Register did not fail")
	}
}

func TestGenerateWithoutDiscover(t *testing.T) {
	s := demoServer(t)
	raw, err := openrpc.Generate(s, openrpc.Info{}, func(name string) bool { return !strings.HasPrefix(name, "demo_") })
	if err != nil {
		t.Fatal(err)
	}
	d := parse(t, raw)
	names := d.names()
	if slices.Contains(names, "rpc.discover") || slices.Contains(names, "demo_subscribe") || !slices.Contains(names, "add") {
		t.Errorf("methods: %v", names)
	}
	if bytes.Contains(raw, []byte("x-extensions")) {
		t.Error("x-extensions declared without a subscription method")
	}
}

// Greeting is a named struct result, described under components.
type Greeting struct {
	Text  string   `json:"text"`
	Lang  *string  `json:"lang,omitempty"`
	Other []string `json:"other"`
}

// Person is the params of introduce.
type Person struct {
	Name string  `json:"name"`
	Age  int     `json:"age"`
	City *string `json:"city"`
}

func TestDocumentDescribesTypesAndDocs(t *testing.T) {
	s := rpccore.NewServer()
	err := s.RegisterMethods(rpccore.Methods{
		"greet": rpccore.Func2(func(context.Context, string, int) (Greeting, error) { return Greeting{}, nil }, "name", "times").
			Default("times", 1).
			Describe(rpccore.Doc{Summary: "Greets.", Description: "At length.", Params: map[string]string{"name": "Who."},
				Result: "The greeting."}),
		"introduce": rpccore.Struct(func(context.Context, Person) (*Greeting, error) { return nil, nil }),
		"forget":    rpccore.Proc1(func(context.Context, string) error { return nil }, "name"),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := openrpc.Generate(s, openrpc.Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Methods    []json.RawMessage `json:"methods"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"name":"forget","paramStructure":"either","params":[{"name":"name","required":true,"schema":{"type":"string"}}],` +
			`"result":{"name":"result","schema":{"type":"null"}}}`,
		`{"name":"greet","summary":"Greets.","description":"At length.","paramStructure":"either","params":[` +
			`{"name":"name","description":"Who.","required":true,"schema":{"type":"string"}},` +
			`{"name":"times","schema":{"type":"integer","default":1}}],` +
			`"result":{"name":"result","description":"The greeting.","schema":{"$ref":"#/components/schemas/Greeting"}}}`,
		`{"name":"introduce","paramStructure":"either","params":[` +
			`{"name":"name","required":true,"schema":{"type":"string"}},` +
			`{"name":"age","required":true,"schema":{"type":"integer"}},` +
			`{"name":"city","schema":{"anyOf":[{"type":"string"},{"type":"null"}]}}],` +
			`"result":{"name":"result","schema":{"anyOf":[{"$ref":"#/components/schemas/Greeting"},{"type":"null"}]}}}`,
	}
	for i, m := range got.Methods {
		if i >= len(want) || string(m) != want[i] {
			t.Errorf("method %d:\n%s", i, m)
		}
	}
	greeting := `{"type":"object","properties":{"text":{"type":"string"},` +
		`"lang":{"anyOf":[{"type":"string"},{"type":"null"}]},"other":{"type":"array","items":{"type":"string"}}},` +
		`"required":["text","other"]}`
	if len(got.Components.Schemas) != 1 || string(got.Components.Schemas["Greeting"]) != greeting {
		t.Errorf("components: %s", got.Components.Schemas)
	}
}

func TestDefaultThatCannotBeEncodedFailsRegister(t *testing.T) {
	s := rpccore.NewServer()
	m := rpccore.Func1(func(context.Context, func()) (int, error) { return 0, nil }, "f").Default("f", func() {})
	if err := s.Register("f", m); err != nil {
		t.Fatal(err)
	}
	if err := openrpc.Register(s, openrpc.Info{}); err == nil || !strings.Contains(err.Error(), `method "f"`) {
		t.Fatalf("Register: %v", err)
	}
	if s.Method("rpc.discover") != nil {
		t.Fatal("rpc.discover registered though its document failed")
	}
}
