package natshub

import (
	"encoding/json"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/policy"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func init() {
	caddy.RegisterModule(Module{})
}

// Module is the NATS hub: every Caddy connected to the same NATS with the
// same subject prefix shares its subscriptions' topics, so that what one
// publishes reaches the subscribers of all. Each Caddy holds one NATS
// subscription per topic that has subscribers there, and hands each
// message to them itself.
//
// With history, the messages are kept in a JetStream stream for
// resuming: notifications carry their position, and a subscriber who
// reconnects gets what it missed, or is told plainly that it cannot.
// Every Caddy sharing the hub should configure it alike.
//
// NATS need not be up when Caddy starts: the hub keeps trying. List every
// server of a NATS cluster in url (the client learns the others too): the
// hub fails over to another when one is lost. While NATS is unreachable
// for longer than publish_timeout, or was never reached, a publish
// reaches the subscribers of this Caddy at once and waits, up to
// max_pending messages, to reach the others once NATS is back; past that,
// the publish fails. With history, those notifications carry a position
// that does not resume (its epoch begins with "local-"). When NATS is
// reachable as Caddy loads the configuration and refuses the history's
// stream as configured (replicas above the cluster's servers, a change it
// cannot make to an existing stream), the configuration fails to load.
type Module struct {
	// The NATS servers, as URLs such as nats://127.0.0.1:4222 (tls://,
	// ws:// and wss:// too); the hub goes on to the next when one fails.
	// Default: nats://127.0.0.1:4222.
	URLs []string `json:"urls,omitempty"`
	// Begins every subject the hub uses, and names its JetStream stream:
	// letters, digits, '-' and '_', in tokens separated by dots. Hubs with
	// different prefixes share nothing. Default: caddy_jsonrpc.
	SubjectPrefix string `json:"subject_prefix,omitempty"`
	// The connection's name, as NATS monitoring shows it. Default:
	// "caddy-jsonrpc on <hostname>".
	Name string `json:"name,omitempty"`
	// Authenticates with this token. At most one of token, user,
	// credentials and nkey may be set.
	Token string `json:"token,omitempty"`
	// Authenticates with this user name, and password.
	User string `json:"user,omitempty"`
	// The password of user.
	Password string `json:"password,omitempty"`
	// Authenticates with a credentials file (a user JWT and its NKey
	// seed, as the nsc tool writes them).
	Credentials string `json:"credentials,omitempty"`
	// Authenticates with the NKey seed in this file.
	NKey string `json:"nkey,omitempty"`
	// Connects with TLS. Without its own fields, the system's roots verify
	// the server.
	TLS *TLS `json:"tls,omitempty"`
	// Keeps messages in a JetStream stream, for resuming. max_msgs,
	// max_age and max_bytes bound the whole stream, every topic of the
	// prefix together; max_msgs_per_topic bounds each topic alone; replicas
	// is how many servers of a NATS cluster keep it. Without it, messages
	// go through core NATS and carry no position. Default max_msgs: 10000,
	// unless max_msgs_per_topic is given; default replicas: 1.
	History *HistoryConfig `json:"history,omitempty"`
	// Where NATS keeps the history: file (it survives a restart of NATS)
	// or memory. Only with history. Default: file.
	Storage string `json:"storage,omitempty"`
	// How long NATS has to acknowledge a publish (with history) before it
	// is sent again, and to confirm a subscription; how long a publish
	// waits for room when max_pending wait already; and how long a lost
	// NATS may take to come back before publishes reach this Caddy's
	// subscribers without it. Default: 5s.
	PublishTimeout caddy.Duration `json:"publish_timeout,omitempty"`
	// How many publishes may wait for NATS: for its acknowledgement (with
	// history), or while it is unreachable; past that, a publish fails.
	// Default: 1000.
	MaxPending int `json:"max_pending,omitempty"`

	hub *Hub
	key string
}

// TLS is how the hub connects to NATS with TLS.
type TLS struct {
	// A PEM file of the certificate authorities that verify the server,
	// instead of the system's.
	CA string `json:"ca,omitempty"`
	// A PEM certificate file, with key, for servers that verify clients.
	Cert string `json:"cert,omitempty"`
	// The PEM private key file of cert.
	Key string `json:"key,omitempty"`
	// The name the server's certificate must hold, when it is not the
	// URL's host.
	ServerName string `json:"server_name,omitempty"`
}

// Defaults of the configuration.
const (
	DefaultURL            = "nats://127.0.0.1:4222"
	DefaultSubjectPrefix  = "caddy_jsonrpc"
	DefaultHistoryMsgs    = 10000
	DefaultPublishTimeout = 5 * time.Second
	DefaultMaxPending     = 1000
)

// CaddyModule returns the Caddy module information.
func (Module) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  hubs.Namespace + ".nats",
		New: func() caddy.Module { return new(Module) },
	}
}

// natsHubs holds the NATS hubs in use, by configuration.
var natsHubs = caddy.NewUsagePool()

// Provision checks the configuration, fills in its defaults, and finds or
// makes the hub of this configuration. It does not wait for NATS.
func (m *Module) Provision(ctx caddy.Context) error {
	opts, err := m.options()
	if err != nil {
		return err
	}
	if err := RegisterMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	key, err := json.Marshal(m)
	if err != nil {
		return err
	}
	logger := ctx.Logger()
	v, _, err := natsHubs.LoadOrNew(string(key), func() (caddy.Destructor, error) {
		return New(opts, logger)
	})
	if err != nil {
		return err
	}
	m.hub, m.key = v.(*Hub), string(key)
	return nil
}

// Hub implements hubs.Module.
func (m *Module) Hub() rpccore.Hub { return m.hub }

// Cleanup gives up this configuration's hold on the hub; the last one
// drains and closes the NATS connection.
func (m *Module) Cleanup() error {
	if m.hub != nil {
		_, _ = natsHubs.Delete(m.key)
		m.hub = nil
	}
	return nil
}

// Interface guards
var (
	_ hubs.Module        = (*Module)(nil)
	_ caddy.Provisioner  = (*Module)(nil)
	_ caddy.CleanerUpper = (*Module)(nil)
	_ caddy.Destructor   = (*Hub)(nil)
	_ policy.LimitSharer = (*Hub)(nil)
)
