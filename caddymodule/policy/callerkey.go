package policy

// callerkey.go resolves what names a caller, for rate limit zones and
// per-identity methods: text with Caddy placeholders, read from the HTTP
// request's replacer, or from the connection on stream listeners.

import (
	"fmt"
	"net"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// keyTemplate is a configured key: text with placeholders.
type keyTemplate struct {
	text   string
	single string // the placeholder's name when text is one placeholder and nothing else
}

// newKeyTemplate prepares text.
func newKeyTemplate(text string) keyTemplate {
	k := keyTemplate{text: text}
	if names := placeholderNames(text); len(names) == 1 && text == "{"+names[0]+"}" {
		k.single = names[0]
	}
	return k
}

// resolve returns the key's value for the caller repl describes; unknown
// placeholders are empty.
func (k keyTemplate) resolve(repl *caddy.Replacer) string {
	if repl == nil {
		repl = caddy.NewReplacer()
	}
	if k.single != "" {
		v, _ := repl.GetString(k.single)
		return v
	}
	return repl.ReplaceAll(k.text, "")
}

// placeholderNames returns the names of the placeholders in text, in
// order: what is between each unescaped { and the next }.
func placeholderNames(text string) []string {
	var names []string
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' {
			i++
			continue
		}
		if text[i] != '{' {
			continue
		}
		end := strings.IndexByte(text[i+1:], '}')
		if end < 0 {
			break
		}
		names = append(names, text[i+1:i+1+end])
		i += end + 1
	}
	return names
}

// Placeholders a stream listener knows about its connection, besides
// Caddy's global ones: named as the HTTP request's, so that one key works
// on both and the Caddyfile's shorthands ({remote_host}) apply.
const (
	streamRemote     = "http.request.remote"
	streamRemoteHost = "http.request.remote.host"
	streamRemotePort = "http.request.remote.port"
)

// StreamReplacer returns the replacer of a stream connection from remote.
func StreamReplacer(remote string) *caddy.Replacer {
	repl := caddy.NewReplacer()
	repl.Map(func(key string) (any, bool) {
		switch key {
		case streamRemote:
			return remote, true
		case streamRemoteHost, streamRemotePort:
			host, port, err := net.SplitHostPort(remote)
			if err != nil {
				host, port = remote, ""
			}
			if key == streamRemoteHost {
				return host, true
			}
			return port, true
		}
		return nil, false
	})
	return repl
}

// CheckStreamKey fails for a key with a placeholder that a stream
// connection cannot resolve (an HTTP request's header, an authenticated
// user), naming option.
func CheckStreamKey(option, key string) error {
	repl := StreamReplacer("192.0.2.1:1")
	for _, name := range placeholderNames(key) {
		if _, ok := repl.Get(name); !ok {
			return fmt.Errorf("%s: {%s} is not known on stream listeners, which know {%s}, {%s}, {%s} "+
				"and Caddy's global placeholders such as {env.*}", option, name, streamRemoteHost, streamRemotePort, streamRemote)
		}
	}
	return nil
}
