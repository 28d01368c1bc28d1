package natshub

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile sets up the hub from Caddyfile tokens:
//
//	hub nats {
//	    url             <url> [<url>...]
//	    subject_prefix  <prefix>
//	    name            <connection name>
//	    token           <token>
//	    user            <user> [password <password>]
//	    password        <password>
//	    credentials     <file.creds>
//	    nkey            <seed file>
//	    tls [{
//	        ca          <file>
//	        cert        <file>
//	        key         <file>
//	        server_name <name>
//	    }]
//	    history {
//	        max_msgs           <count>
//	        max_age            <duration>
//	        max_msgs_per_topic <count>
//	        max_bytes          <size>
//	        replicas           <count>
//	    }
//	    storage         file|memory
//	    publish_timeout <duration>
//	    max_pending     <count>
//	}
//
// Give one of token, user (with its password), credentials or nkey, or
// none; tls alone verifies the server with the system's roots.
func (m *Module) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the hub's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		var err error
		switch d.Val() {
		case "url":
			if m.URLs = d.RemainingArgs(); len(m.URLs) == 0 {
				return d.Err("url: want one or more NATS server URLs")
			}
		case "subject_prefix":
			m.SubjectPrefix, err = oneArg(d)
		case "name":
			m.Name, err = oneArg(d)
		case "token":
			m.Token, err = oneArg(d)
		case "user":
			err = m.parseUser(d)
		case "password":
			m.Password, err = oneArg(d)
		case "credentials":
			m.Credentials, err = oneArg(d)
		case "nkey":
			m.NKey, err = oneArg(d)
		case "tls":
			m.TLS, err = parseTLS(d)
		case "history":
			m.History, err = parseHistory(d)
		case "storage":
			m.Storage, err = oneArg(d)
		case "publish_timeout":
			m.PublishTimeout, err = parseDuration(d)
		case "max_pending":
			m.MaxPending, err = parseCount(d)
		default:
			return d.Errf("unrecognized hub nats option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseUser reads `user <user> [password <password>]`.
func (m *Module) parseUser(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	switch {
	case len(args) == 1:
	case len(args) == 3 && args[1] == "password":
		m.Password = args[2]
	default:
		return d.Err("user: want <user> [password <password>]")
	}
	m.User = args[0]
	return nil
}

// parseTLS reads `tls [{...}]`.
func parseTLS(d *caddyfile.Dispenser) (*TLS, error) {
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	t := &TLS{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "ca":
			t.CA, err = oneArg(d)
		case "cert":
			t.Cert, err = oneArg(d)
		case "key":
			t.Key, err = oneArg(d)
		case "server_name":
			t.ServerName, err = oneArg(d)
		default:
			return nil, d.Errf("unrecognized tls option %q", d.Val())
		}
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// oneArg reads the option's one argument.
func oneArg(d *caddyfile.Dispenser) (string, error) {
	option := d.Val()
	var arg string
	if !d.AllArgs(&arg) {
		return "", d.Errf("%s: want one argument", option)
	}
	return arg, nil
}

// parseCount reads the option's one argument, a number above zero.
func parseCount(d *caddyfile.Dispenser) (int, error) {
	option, arg := d.Val(), ""
	if !d.AllArgs(&arg) {
		return 0, d.Errf("%s: want one number", option)
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 {
		return 0, d.Errf("%s: want a number above zero, got %q", option, arg)
	}
	return n, nil
}

// parseDuration reads the option's one argument, a duration above zero.
func parseDuration(d *caddyfile.Dispenser) (caddy.Duration, error) {
	option, arg := d.Val(), ""
	if !d.AllArgs(&arg) {
		return 0, d.Errf("%s: want one duration, such as 5s", option)
	}
	dur, err := caddy.ParseDuration(arg)
	if err != nil || dur <= 0 {
		return 0, d.Errf("%s: want a duration above zero, such as 5s, got %q", option, arg)
	}
	return caddy.Duration(dur), nil
}

var _ caddyfile.Unmarshaler = (*Module)(nil)
