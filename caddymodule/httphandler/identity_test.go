package httphandler

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
)

// identityHandler provisions a handler whose methods depend on the user.
func identityHandler(t *testing.T) *Handler {
	t.Helper()
	return mustProvision(t, &Handler{ServicesRaw: services("handler_test"), Methods: &policy.MethodFilter{
		Allow: []string{"echo"},
		Identity: &policy.MethodIdentity{Key: "{http.auth.user.id}", Rules: map[string]*policy.MethodRules{
			"alice": {Allow: []string{"*"}, Deny: []string{"boom"}},
			"bob":   {Allow: []string{"echo", "whoami"}},
		}},
	}})
}

func TestIdentityChoosesTheMethods(t *testing.T) {
	h := identityHandler(t)
	call := func(user, method string) string {
		var vars map[string]any
		if user != "" {
			vars = map[string]any{"http.auth.user.id": user}
		}
		return postFrom(t, h, "192.0.2.1:1", nil, vars, `{"jsonrpc":"2.0","method":"`+method+`","params":[1],"id":1}`).Body.String()
	}
	notFound := call("alice", "no_such_method")
	for _, tt := range []struct {
		user, method string
		exposed      bool
	}{
		{"alice", "big", true}, {"alice", "echo", true}, {"alice", "boom", false},
		{"bob", "whoami", true}, {"bob", "big", false},
		{"carol", "echo", true}, {"carol", "whoami", false}, // no rules of her own
		{"", "echo", true}, {"", "big", false},
	} {
		got := call(tt.user, tt.method)
		if hidden := got == notFound; hidden == tt.exposed {
			t.Errorf("%q calling %s: %s (exposed: want %v)", tt.user, tt.method, got, tt.exposed)
		}
	}
	// Methods no caller may call are not served at all.
	for _, m := range h.ep.Server.Methods() {
		if m == "boom" {
			t.Errorf("%s is served, though nobody may call it", m)
		}
	}
}

func TestIdentityWithoutRulesLeavesTheStaticFilterAlone(t *testing.T) {
	h := mustProvision(t, &Handler{ServicesRaw: services("handler_test"), Methods: &policy.MethodFilter{Allow: []string{"echo"}}})
	if h.ep.Policy != nil {
		t.Fatal("a static method filter installs a call gate")
	}
	if got := post(t, h, `{"jsonrpc":"2.0","method":"big","params":[1],"id":1}`).Body.String(); !strings.Contains(got, "-32601") {
		t.Errorf("big: %s", got)
	}
}

func TestIdentityValidation(t *testing.T) {
	for _, tt := range []struct {
		id   *policy.MethodIdentity
		want string
	}{
		{&policy.MethodIdentity{Rules: map[string]*policy.MethodRules{"a": {Allow: []string{"*"}}}}, "methods identity: key: required"},
		{&policy.MethodIdentity{Key: "{x}"}, "no value has rules"},
		{&policy.MethodIdentity{Key: "{x}", Rules: map[string]*policy.MethodRules{"a": {}}}, `"a": want allow or deny`},
		{&policy.MethodIdentity{Key: "{x}", Rules: map[string]*policy.MethodRules{"a": {Deny: []string{"[z"}}}}, `"a" deny: bad pattern`},
		{&policy.MethodIdentity{Key: "{x}", Rules: map[string]*policy.MethodRules{"*": {Allow: []string{"a"}}}}, "matched exactly"},
	} {
		err := (&policy.MethodFilter{Identity: tt.id}).Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want it to say %q", err, tt.want)
		}
	}
}

func TestIdentityOverWebSocketIsFixedAtTheUpgrade(t *testing.T) {
	h := identityHandler(t)
	url := policyWSServer(t, h)
	bob, _, err := dialWS(t, url, http.Header{"X-User": {"bob"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, bob, `{"jsonrpc":"2.0","method":"big","params":[1],"id":1}`); !strings.Contains(got, "-32601") {
		t.Errorf("bob calling big: %s", got)
	}
	alice, _, err := dialWS(t, url, http.Header{"X-User": {"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, alice, `{"jsonrpc":"2.0","method":"big","params":[1],"id":1}`); got != `{"jsonrpc":"2.0","result":"x","id":1}` {
		t.Errorf("alice calling big: %s", got)
	}
	_ = alice.Close(websocket.StatusNormalClosure, "")
}

func TestDiscoveryListsEachCallersOwnMethods(t *testing.T) {
	h := identityHandler(t)
	discovered := func(user string) []string {
		t.Helper()
		var vars map[string]any
		if user != "" {
			vars = map[string]any{"http.auth.user.id": user}
		}
		body := postFrom(t, h, "192.0.2.1:1", nil, vars, `{"jsonrpc":"2.0","method":"rpc.discover","id":1}`).Body.Bytes()
		var answer struct {
			Result struct {
				Methods []struct{ Name string } `json:"methods"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &answer); err != nil || len(answer.Result.Methods) == 0 {
			t.Fatalf("%q: rpc.discover answered %s", user, body)
		}
		var names []string
		for _, m := range answer.Result.Methods {
			names = append(names, m.Name)
		}
		return names
	}
	for user, want := range map[string]string{
		"bob":   "echo rpc.discover whoami",
		"carol": "echo rpc.discover",
		"":      "echo rpc.discover",
	} {
		if got := strings.Join(discovered(user), " "); got != want {
			t.Errorf("%q discovers %s, want %s", user, got, want)
		}
	}
	alice := discovered("alice")
	if slices.Contains(alice, "boom") || !slices.Contains(alice, "big") || !slices.Contains(alice, "rpc.discover") {
		t.Errorf("alice discovers %v: every method but boom", alice)
	}
}
