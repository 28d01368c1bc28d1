package streamapp

// streamtls.go gets a stream listener's TLS configuration from Caddy's TLS
// app, so that `tls internal` or an ACME certificate serves the stream as
// it serves a site.

import (
	"crypto/tls"
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddytls"
)

// StreamTLS is TLS on a stream listener.
type StreamTLS struct {
	// Who issues the certificate: `internal` for Caddy's local CA (as a
	// site's `tls internal`), `acme` for the TLS app's ACME issuers. Not
	// used with cert_file. Default: acme.
	Issuer string `json:"issuer,omitempty"`

	// The names the certificate is for. Clients that send no server name
	// (SNI) get the first. Default: the host of the listener's first
	// address.
	Names []string `json:"names,omitempty"`

	// A certificate chain and its key, PEM files, instead of a managed
	// certificate.
	CertFile string `json:"cert_file,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
}

// check fails for settings that cannot work.
func (t *StreamTLS) check() error {
	switch {
	case (t.CertFile == "") != (t.KeyFile == ""):
		return fmt.Errorf("jsonrpc tls: cert_file and key_file go together")
	case t.CertFile != "" && t.Issuer != "":
		return fmt.Errorf("jsonrpc tls: a certificate from files has no issuer")
	case t.Issuer != "" && t.Issuer != "internal" && t.Issuer != "acme":
		return fmt.Errorf("jsonrpc tls: issuer %q is not internal or acme", t.Issuer)
	}
	return nil
}

// streamTLS is a provisioned StreamTLS: the configuration connections are
// served with, and the names to manage once the app starts.
type streamTLS struct {
	config *tls.Config
	app    *caddytls.TLS
	names  []string
}

// provision builds the TLS configuration. A managed certificate comes from
// the TLS app: an automation policy for the names (with the internal
// issuer when asked), and a connection policy that picks certificates by
// server name from the app's cache.
func (t *StreamTLS) provision(ctx caddy.Context, defaultName string) (*streamTLS, error) {
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc tls: %w", err)
		}
		return &streamTLS{config: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}, nil
	}
	names := t.Names
	if len(names) == 0 {
		if defaultName == "" {
			return nil, fmt.Errorf("jsonrpc tls: no names, and the listener's address has no host")
		}
		names = []string{defaultName}
	}
	appIface, err := ctx.App("tls")
	if err != nil {
		return nil, fmt.Errorf("jsonrpc tls: loading the tls app: %w", err)
	}
	app := appIface.(*caddytls.TLS)
	ap := &caddytls.AutomationPolicy{SubjectsRaw: names}
	if t.Issuer == "internal" {
		ap.IssuersRaw = []json.RawMessage{json.RawMessage(`{"module":"internal"}`)}
	}
	if err := app.AddAutomationPolicy(ap); err != nil {
		return nil, fmt.Errorf("jsonrpc tls: %w", err)
	}
	policies := caddytls.ConnectionPolicies{&caddytls.ConnectionPolicy{DefaultSNI: names[0]}}
	if err := policies.Provision(ctx); err != nil {
		return nil, fmt.Errorf("jsonrpc tls: %w", err)
	}
	return &streamTLS{config: policies.TLSConfig(ctx), app: app, names: names}, nil
}

// manage starts managing the certificate's names.
func (t *streamTLS) manage() error {
	if t.app == nil {
		return nil
	}
	subjects := make(map[string]struct{}, len(t.names))
	for _, n := range t.names {
		subjects[n] = struct{}{}
	}
	return t.app.Manage(subjects)
}
