package natshub

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/nats-io/nats.go"
)

// options checks m, fills in its defaults, and returns the hub's
// options: the one place of both.
func (m *Module) options() (Options, error) {
	if len(m.URLs) == 0 {
		m.URLs = []string{DefaultURL}
	}
	for _, u := range m.URLs {
		if err := checkURL(u); err != nil {
			return Options{}, err
		}
	}
	if m.SubjectPrefix == "" {
		m.SubjectPrefix = DefaultSubjectPrefix
	}
	if err := checkPrefix(m.SubjectPrefix); err != nil {
		return Options{}, err
	}
	if m.Name == "" {
		host, _ := os.Hostname()
		m.Name = "caddy-jsonrpc on " + host
	}
	if m.PublishTimeout < 0 {
		return Options{}, fmt.Errorf("publish_timeout: must not be negative")
	}
	if m.PublishTimeout == 0 {
		m.PublishTimeout = caddy.Duration(DefaultPublishTimeout)
	}
	if m.MaxPending < 0 {
		return Options{}, fmt.Errorf("max_pending: must not be negative")
	}
	if m.MaxPending == 0 {
		m.MaxPending = DefaultMaxPending
	}
	opts := Options{
		URLs:           m.URLs,
		SubjectPrefix:  m.SubjectPrefix,
		Name:           m.Name,
		PublishTimeout: time.Duration(m.PublishTimeout),
		MaxPending:     m.MaxPending,
	}
	var err error
	if opts.History, err = m.history(); err != nil {
		return Options{}, err
	}
	if opts.Connect, err = m.auth(); err != nil {
		return Options{}, err
	}
	if m.TLS != nil {
		cfg, err := m.TLS.config()
		if err != nil {
			return Options{}, err
		}
		opts.Connect = append(opts.Connect, nats.Secure(cfg))
	}
	return opts, nil
}

// checkURL reports whether u is a NATS server URL.
func checkURL(u string) error {
	s := u
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	p, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("url: %q is not a URL: %v", u, err)
	}
	switch p.Scheme {
	case "nats", "tls", "ws", "wss":
	default:
		return fmt.Errorf("url: %q: the scheme must be nats, tls, ws or wss", u)
	}
	if p.Hostname() == "" {
		return fmt.Errorf("url: %q has no host", u)
	}
	return nil
}

// auth checks the authentication options, at most one kind of them, and
// returns the connection's.
func (m *Module) auth() ([]nats.Option, error) {
	var kinds []string
	for _, k := range []struct {
		name string
		set  bool
	}{{"token", m.Token != ""}, {"user", m.User != ""}, {"credentials", m.Credentials != ""}, {"nkey", m.NKey != ""}} {
		if k.set {
			kinds = append(kinds, k.name)
		}
	}
	if len(kinds) > 1 {
		return nil, fmt.Errorf("%s: only one of token, user, credentials and nkey may be set", strings.Join(kinds, ", "))
	}
	if m.Password != "" && m.User == "" {
		return nil, fmt.Errorf("password: only with user")
	}
	switch {
	case m.Token != "":
		return []nats.Option{nats.Token(m.Token)}, nil
	case m.User != "":
		return []nats.Option{nats.UserInfo(m.User, m.Password)}, nil
	case m.Credentials != "":
		if _, err := os.ReadFile(m.Credentials); err != nil {
			return nil, fmt.Errorf("credentials: %v", err)
		}
		return []nats.Option{nats.UserCredentials(m.Credentials)}, nil
	case m.NKey != "":
		opt, err := nats.NkeyOptionFromSeed(m.NKey)
		if err != nil {
			return nil, fmt.Errorf("nkey: %v", err)
		}
		return []nats.Option{opt}, nil
	}
	return nil, nil
}

// config returns the TLS configuration of the connection.
func (t *TLS) config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CA != "" {
		pem, err := os.ReadFile(t.CA)
		if err != nil {
			return nil, fmt.Errorf("tls ca: %v", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca: %s holds no PEM certificate", t.CA)
		}
	}
	if (t.Cert == "") != (t.Key == "") {
		return nil, fmt.Errorf("tls cert, key: give both or neither")
	}
	if t.Cert != "" {
		pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
		if err != nil {
			return nil, fmt.Errorf("tls cert, key: %v", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
