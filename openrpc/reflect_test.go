package openrpc

import (
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

type (
	celsius float64

	inner struct {
		Deep  string `json:"deep"`
		Shade string `json:"shade"`
	}
	Base struct {
		ID    int    `json:"id"`
		Shade string `json:"shade"` // shallower than inner's: wins
		inner
	}
	tagged struct {
		A      int                      `json:"a"`
		B      string                   `json:"b,omitempty"`
		C      *float64                 `json:"c"`
		N      int64                    `json:"n,string"`
		P      *bool                    `json:"p,string,omitzero"`
		Dash   int                      `json:"-,"`
		Skip   int                      `json:"-"`
		hidden int                      // unexported: not encoded
		Plain  uint8                    // no tag: named after the field
		M      map[string]celsius       `json:"m"`
		Any    map[string]any           `json:"any"`
		Raw    rpccore.RawJSON          `json:"raw"`
		Bytes  []byte                   `json:"bytes"`
		Array  [2]int16                 `json:"array"`
		When   time.Time                `json:"when"`
		IP     net.IP                   `json:"ip"`
		Maybe  rpccore.Nullable[string] `json:"maybe"`
	}
	// Node refers to itself.
	Node struct {
		Value    int     `json:"value"`
		Children []*Node `json:"children"`
	}
	Pair[K comparable, V any] struct {
		Key K `json:"key"`
		Val V `json:"val"`
	}
	// Position has the name of rpccore.Position.
	Position struct {
		Line int `json:"line"`
	}
	withEmbedded struct {
		Base
		Name string `json:"name"`
	}
	conflict struct {
		A1
		A2
	}
	A1 struct{ X int }
	A2 struct{ X int }
)

func schemaJSON(t *testing.T, r *reflector, typ reflect.Type) string {
	t.Helper()
	b, err := marshal(r.schemaOf(typ))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSchemaOfPlainTypes(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[bool](), `{"type":"boolean"}`},
		{reflect.TypeFor[int](), `{"type":"integer"}`},
		{reflect.TypeFor[uint](), `{"type":"integer","minimum":0}`},
		{reflect.TypeFor[int8](), `{"type":"integer","minimum":-128,"maximum":127}`},
		{reflect.TypeFor[uint32](), `{"type":"integer","minimum":0,"maximum":4294967295}`},
		{reflect.TypeFor[float32](), `{"type":"number"}`},
		{reflect.TypeFor[celsius](), `{"type":"number"}`},
		{reflect.TypeFor[string](), `{"type":"string"}`},
		{reflect.TypeFor[*string](), `{"anyOf":[{"type":"string"},{"type":"null"}]}`},
		{reflect.TypeFor[**string](), `{"anyOf":[{"type":"string"},{"type":"null"}]}`},
		{reflect.TypeFor[rpccore.Nullable[float32]](), `{"anyOf":[{"type":"number"},{"type":"null"}]}`},
		{reflect.TypeFor[[]string](), `{"type":"array","items":{"type":"string"}}`},
		{reflect.TypeFor[[]byte](), `{"type":"string","contentEncoding":"base64"}`},
		{reflect.TypeFor[[3]byte](), `{"type":"array","items":{"type":"integer","minimum":0,"maximum":255},"minItems":3,"maxItems":3}`},
		{reflect.TypeFor[map[int]bool](), `{"type":"object","additionalProperties":{"type":"boolean"}}`},
		{reflect.TypeFor[map[[2]int]bool](), `{}`},
		{reflect.TypeFor[any](), `{}`},
		{reflect.TypeFor[rpccore.RawJSON](), `{}`},
		{reflect.TypeFor[json.RawMessage](), `{}`},
		{reflect.TypeFor[*rpccore.RawJSON](), `{}`},
		{reflect.TypeFor[time.Time](), `{"type":"string","format":"date-time"}`},
		{reflect.TypeFor[net.IP](), `{"type":"string"}`},
		{reflect.TypeFor[chan int](), `{}`},
		{reflect.TypeFor[struct {
			A int `json:"a"`
		}](), `{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`},
		{reflect.TypeFor[struct{}](), `{"type":"object"}`},
	}
	for _, tt := range tests {
		if got := schemaJSON(t, newReflector(), tt.typ); got != tt.want {
			t.Errorf("%v: %s\n\twant %s", tt.typ, got, tt.want)
		}
	}
}

func TestSchemaOfStructFollowsJSONTags(t *testing.T) {
	r := newReflector()
	if got := schemaJSON(t, r, reflect.TypeFor[tagged]()); got != `{"$ref":"#/components/schemas/tagged"}` {
		t.Fatalf("ref: %s", got)
	}
	got, _ := marshal(r.components["tagged"])
	want := `{"type":"object","properties":{` +
		`"a":{"type":"integer"},` +
		`"b":{"type":"string"},` +
		`"c":{"anyOf":[{"type":"number"},{"type":"null"}]},` +
		`"n":{"type":"string"},` +
		`"p":{"anyOf":[{"type":"string"},{"type":"null"}]},` +
		`"-":{"type":"integer"},` +
		`"Plain":{"type":"integer","minimum":0,"maximum":255},` +
		`"m":{"type":"object","additionalProperties":{"type":"number"}},` +
		`"any":{"type":"object"},` +
		`"raw":{},` +
		`"bytes":{"type":"string","contentEncoding":"base64"},` +
		`"array":{"type":"array","items":{"type":"integer","minimum":-32768,"maximum":32767},"minItems":2,"maxItems":2},` +
		`"when":{"type":"string","format":"date-time"},` +
		`"ip":{"type":"string"},` +
		`"maybe":{"anyOf":[{"type":"string"},{"type":"null"}]}},` +
		`"required":["a","c","n","-","Plain","m","any","raw","bytes","array","when","ip","maybe"]}`
	if string(got) != want {
		t.Errorf("tagged:\n%s\nwant\n%s", got, want)
	}
}

func TestSchemaOfEmbeddedStructs(t *testing.T) {
	r := newReflector()
	schemaJSON(t, r, reflect.TypeFor[withEmbedded]())
	got, _ := marshal(r.components["withEmbedded"])
	// Base's fields are promoted; inner's shade loses to Base's, its deep
	// comes through.
	want := `{"type":"object","properties":{"id":{"type":"integer"},"shade":{"type":"string"},` +
		`"deep":{"type":"string"},"name":{"type":"string"}},"required":["id","shade","deep","name"]}`
	if string(got) != want {
		t.Errorf("withEmbedded:\n%s\nwant\n%s", got, want)
	}
	schemaJSON(t, r, reflect.TypeFor[conflict]())
	if got, _ := marshal(r.components["conflict"]); string(got) != `{"type":"object"}` {
		t.Errorf("two X at one depth, neither tagged, are both dropped: %s", got)
	}
}

func TestSchemaOfRecursiveAndGenericTypes(t *testing.T) {
	r := newReflector()
	if got := schemaJSON(t, r, reflect.TypeFor[Node]()); got != `{"$ref":"#/components/schemas/Node"}` {
		t.Fatalf("Node: %s", got)
	}
	got, _ := marshal(r.components["Node"])
	want := `{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":` +
		`{"anyOf":[{"$ref":"#/components/schemas/Node"},{"type":"null"}]}}},"required":["value","children"]}`
	if string(got) != want {
		t.Errorf("Node:\n%s\nwant\n%s", got, want)
	}
	if got := schemaJSON(t, r, reflect.TypeFor[Pair[string, int]]()); got != `{"$ref":"#/components/schemas/Pair_string_int"}` {
		t.Errorf("Pair[string,int]: %s", got)
	}
}

func TestComponentNamesDoNotCollide(t *testing.T) {
	r := newReflector()
	theirs := schemaJSON(t, r, reflect.TypeFor[rpccore.Position]())
	ours := schemaJSON(t, r, reflect.TypeFor[Position]())
	if theirs != `{"$ref":"#/components/schemas/Position"}` || ours != `{"$ref":"#/components/schemas/openrpc.Position"}` {
		t.Fatalf("rpccore.Position %s, openrpc.Position %s", theirs, ours)
	}
	if again := schemaJSON(t, r, reflect.TypeFor[Position]()); again != ours {
		t.Fatalf("a second use names it %s", again)
	}
	if len(r.components) != 2 {
		t.Fatalf("components: %v", r.components)
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Pair[string,int]":         "Pair_string_int",
		"Box[github.com/x/y.Item]": "Box_github.com_x_y.Item",
		"Plain":                    "Plain",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}
