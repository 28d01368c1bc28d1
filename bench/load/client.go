package load

// client.go builds the HTTP client of one connection.

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"time"
)

// newClient returns a client that holds at most one connection to u,
// speaking the protocol c asks for.
func newClient(c Config, u *url.URL) *http.Client {
	d := &net.Dialer{Timeout: c.Timeout, KeepAlive: 30 * time.Second, Control: loopbackOnly}
	var p http.Protocols
	switch {
	case !c.HTTP2:
		p.SetHTTP1(true)
	case u.Scheme == "https":
		p.SetHTTP2(true)
	default:
		p.SetUnencryptedHTTP2(true)
	}
	t := &http.Transport{
		DialContext:         d.DialContext,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: c.Insecure},
		TLSHandshakeTimeout: c.Timeout,
		Protocols:           &p,
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: t, Timeout: c.Timeout}
}

// wantProtoMajor is the major protocol version answers must come in.
func wantProtoMajor(c Config) int {
	if c.HTTP2 {
		return 2
	}
	return 1
}
