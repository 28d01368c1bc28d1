package openrpc

// subscriptions.go describes the methods rpccore registers for
// subscriptions, <ns>_subscribe and <ns>_unsubscribe, which OpenRPC has no
// object for: as methods, with the specification extension x-subscription
// naming the three method names of the namespace and, on the subscribe
// method, its sources and their params.

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// namespace is one subscription namespace and its sources.
type namespace struct {
	subscribe, unsubscribe, notification string
	sources                              []rpccore.SubscriptionSource
}

// subscriptionsByMethod indexes the namespaces of sources by the names of
// their subscribe and unsubscribe methods.
func subscriptionsByMethod(sources []rpccore.SubscriptionSource) map[string]*namespace {
	out := map[string]*namespace{}
	for _, src := range sources {
		ns := out[src.Namespace+"_subscribe"]
		if ns == nil {
			ns = &namespace{subscribe: src.Namespace + "_subscribe", unsubscribe: src.Namespace + "_unsubscribe",
				notification: src.Namespace + "_subscription"}
			out[ns.subscribe], out[ns.unsubscribe] = ns, ns
		}
		ns.sources = append(ns.sources, src) // in name order, as given
	}
	return out
}

// subscriptionExt is the value of x-subscription.
type subscriptionExt struct {
	Subscribe    string   `json:"subscribe"`
	Unsubscribe  string   `json:"unsubscribe"`
	Notification string   `json:"notification"`
	Sources      []source `json:"sources,omitempty"`
}

// source is one subscription source in x-subscription.
type source struct {
	Name        string              `json:"name"`
	Summary     string              `json:"summary,omitempty"`
	Description string              `json:"description,omitempty"`
	Params      []contentDescriptor `json:"params"`
}

func (ns *namespace) ext() *subscriptionExt {
	return &subscriptionExt{Subscribe: ns.subscribe, Unsubscribe: ns.unsubscribe, Notification: ns.notification}
}

// subscribeMethod describes <ns>_subscribe by its named form,
// {"name", "args", "resume"}, which answers an object; the positional
// form, go-ethereum's, answers the id alone.
func (g *generator) subscribeMethod(ns *namespace, doc rpccore.Doc) (method, error) {
	ext := ns.ext()
	names := make([]string, 0, len(ns.sources))
	var list strings.Builder
	for _, src := range ns.sources {
		d := src.Method.Doc()
		params, err := g.params(src.Method.Params(), d.Params)
		if err != nil {
			return method{}, err
		}
		ext.Sources = append(ext.Sources, source{Name: src.Name, Summary: d.Summary, Description: d.Description, Params: params})
		names = append(names, src.Name)
		list.WriteString("\n- `" + src.Name + "`")
		if len(params) > 0 {
			args := make([]string, len(params))
			for i, p := range params {
				args[i] = p.Name
			}
			list.WriteString(", args `[" + strings.Join(args, ", ") + "]`")
		}
		if d.Summary != "" {
			list.WriteString(": " + d.Summary)
		}
	}
	position := g.schemaOf(reflect.TypeFor[rpccore.Position]())
	description := "By name, `{\"name\": ..., \"args\": [...], \"resume\": {...}}` answers an object with the " +
		"subscription's id; by position, `[\"<name>\", args...]` answers the id alone (go-ethereum's form). " +
		"Notifications are `" + ns.notification + "` with params `{\"subscription\": <id>, \"result\": <value>}`, " +
		"and `" + ns.unsubscribe + "` ends the subscription. Subscriptions need a connection that stays open " +
		"(WebSocket or a stream): over HTTP this method answers -32601. The subscriptions:\n" + list.String()
	if doc.Description != "" {
		description += "\n\n" + doc.Description
	}
	return method{
		Name:           ns.subscribe,
		Summary:        doc.Summary,
		Description:    description,
		ParamStructure: byName,
		Params: []contentDescriptor{
			{Name: "name", Required: true, Description: "Which subscription.", Schema: &schema{Type: "string", Enum: names}},
			{Name: "args", Description: "The subscription's params, by position (see x-subscription).",
				Schema: orNull(&schema{Type: "array"})},
			{Name: "resume", Description: "A position from a notification, to resume after a lost connection: " +
				"when the history still holds every message after it, they come first, in order.",
				Schema: orNull(position)},
		},
		Result: &contentDescriptor{Name: "subscription", Schema: &schema{
			Type: "object",
			Properties: properties{
				{name: "subscription", schema: &schema{Type: "string", Description: "The subscription's id."}},
				{name: "position", schema: position},
				{name: "recovered", schema: &schema{Type: "boolean",
					Description: "Whether every message after resume follows; there when resume was given."}},
			},
			Required: []string{"subscription"},
		}},
		Subscription: ext,
	}, nil
}

// unsubscribeMethod describes <ns>_unsubscribe as a typed method, with
// x-subscription.
func (g *generator) unsubscribeMethod(ns *namespace, m *rpccore.Method) (method, error) {
	out, err := g.typedMethod(ns.unsubscribe, m)
	out.Subscription = ns.ext()
	return out, err
}

// extension declares a specification extension, in the form of
// @open-rpc/specification-extension-spec, which validators apply to the
// objects it names.
type extension struct {
	OpenRPCExtension string          `json:"openrpcExtension"`
	Name             string          `json:"name"`
	Version          string          `json:"version"`
	Summary          string          `json:"summary"`
	Restricted       []string        `json:"restricted"`
	Schema           json.RawMessage `json:"schema"`
}

// subscriptionExtension declares x-subscription.
var subscriptionExtension = extension{
	OpenRPCExtension: "0.0.0-development",
	Name:             "x-subscription",
	Version:          "1.0.0",
	Summary: "A method of a subscription namespace: the names of its subscribe and unsubscribe methods and of " +
		"its notifications, and on the subscribe method the subscriptions with their params.",
	Restricted: []string{"methodObject"},
	Schema: json.RawMessage(`{"type":"object","required":["subscribe","unsubscribe","notification"],` +
		`"properties":{"subscribe":{"type":"string"},"unsubscribe":{"type":"string"},"notification":{"type":"string"},` +
		`"sources":{"type":"array","items":{"type":"object","required":["name","params"],` +
		`"properties":{"name":{"type":"string"},"summary":{"type":"string"},"description":{"type":"string"},` +
		`"params":{"type":"array","items":{"type":"object","required":["name","schema"]}}}}}}}`),
}
