// Package caddyproc runs the Caddy under test: bin/caddy (built by the
// repository's xcaddy.sh) serving bench/Caddyfile.bench on free loopback
// ports and a unix socket, with its local CA and the socket in a temporary
// directory, until Stop.
package caddyproc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/childserve"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/msgload"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// The call the readiness check makes, and its answer (also what the
// static respond of Caddyfile.bench serves).
const (
	AddCall   = `{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`
	AddAnswer = `{"jsonrpc":"2.0","result":3,"id":1}`
)

// Caddy is a running Caddy.
type Caddy struct {
	Proc  *childserve.Proc
	HTTPS string // the base URL of the HTTPS site: /rpc is jsonrpc, /static the respond
	WS    string // the ws:// URL of jsonrpc on the cleartext site
	// TCP and Socket are the jsonrpc app's stream listeners: a loopback
	// address and a unix socket's path.
	TCP, Socket string
	dir         string
}

// Start runs bin with the Caddyfile config and waits until both /rpc and
// /static answer the add call right over HTTPS.
func Start(ctx context.Context, bin, config string) (*Caddy, error) {
	return start(ctx, bin, config, nil, (*Caddy).servesHTTPS)
}

// StartWS runs bin with the Caddyfile config, which serves jsonrpc over
// ws:// on 127.0.0.1:{$BENCH_WS_PORT}/rpc and may read the variables of
// env, and waits until /rpc answers the add call over WebSocket. Only the
// WS field of the Caddy it returns is served.
func StartWS(ctx context.Context, bin, config string, env []string) (*Caddy, error) {
	return start(ctx, bin, config, env, (*Caddy).ServesWebSocket)
}

// start runs bin with config on free ports, in a temporary directory, and
// waits until ready passes.
func start(ctx context.Context, bin, config string, env []string, ready func(*Caddy, context.Context) error) (*Caddy, error) {
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-caddy-")
	if err != nil {
		return nil, err
	}
	env = append([]string{
		"BENCH_HTTPS_PORT=" + ports[0], "BENCH_HTTP_PORT=" + ports[1], "BENCH_WS_PORT=" + ports[2],
		"BENCH_TCP_PORT=" + ports[3], "BENCH_SOCKET=" + dir + "/rpc.sock",
		"XDG_DATA_HOME=" + dir + "/data", "XDG_CONFIG_HOME=" + dir + "/config",
	}, env...)
	p, err := childserve.StartProc(ctx, env, bin, "run", "--config", config, "--adapter", "caddyfile")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &Caddy{Proc: p, HTTPS: "https://127.0.0.1:" + ports[0], WS: "ws://127.0.0.1:" + ports[2] + "/rpc",
		TCP: "127.0.0.1:" + ports[3], Socket: dir + "/rpc.sock", dir: dir}
	if err := c.await(ctx, ready); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// await polls ready until it passes, Caddy exits, or 30 seconds pass.
func (c *Caddy) await(ctx context.Context, ready func(*Caddy, context.Context) error) error {
	const timeout = 30 * time.Second
	for end := time.Now().Add(timeout); ; {
		err := ready(c, ctx)
		switch {
		case err == nil:
			return nil
		case c.Proc.Exited():
			return fmt.Errorf("caddy exited; its output:\n%s", c.Proc.Log())
		case time.Now().After(end):
			return fmt.Errorf("caddy did not answer right within %v (%v); its output:\n%s", timeout, err, c.Proc.Log())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// servesHTTPS makes the add call on /rpc and /static once each, verifying
// no certificate (Caddy's local CA signs the site's).
func (c *Caddy) servesHTTPS(context.Context) error {
	client := &http.Client{Timeout: time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	for _, path := range []string{"/rpc", "/static"} {
		resp, err := client.Post(c.HTTPS+path, "application/json", strings.NewReader(AddCall))
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body) // a body cut short is not the answer
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); string(body) != AddAnswer || ct != "application/json" {
			return fmt.Errorf("%s answered %s %q (Content-Type %q), want %s", path, resp.Status, body, ct, AddAnswer)
		}
	}
	return nil
}

// ServesStreams returns nil when the jsonrpc app answers the add call over
// its TCP listener and its unix socket.
func (c *Caddy) ServesStreams(ctx context.Context) error {
	for _, l := range [][2]string{{"tcp", c.TCP}, {"unix", c.Socket}} {
		if err := callAdd(ctx, msgload.StreamDialer(l[0], l[1])); err != nil {
			return fmt.Errorf("jsonrpc app over %s %s: %w", l[0], l[1], err)
		}
	}
	return nil
}

// ServesWebSocket returns nil when jsonrpc upgrades a WebSocket request on
// the cleartext site and answers the add call over it.
func (c *Caddy) ServesWebSocket(ctx context.Context) error {
	return callAdd(ctx, msgload.Dialer(c.WS))
}

// callAdd makes the add call on a connection from dial, which must answer
// it within 5 seconds.
func callAdd(ctx context.Context, dial func(context.Context) (pipeline.Conn, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, func() { conn.Close() })()
	if err := pipeline.Call(conn, []byte(AddCall), msgload.Expect{1: "3"}); err != nil {
		return errors.Join(err, ctx.Err())
	}
	return nil
}

// freePorts returns n loopback ports that were free, all different.
func freePorts(n int) ([]string, error) {
	var ports []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}

// Stop stops Caddy and removes its data.
func (c *Caddy) Stop() {
	c.Proc.Stop()
	os.RemoveAll(c.dir)
}

// Version returns the first word of `bin version`.
func Version(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if f := strings.Fields(string(out)); err == nil && len(f) > 0 {
		return f[0]
	}
	return fmt.Sprintf("unknown (%v)", err)
}

// HasModule reports whether bin was built with the Caddy module id
// (`bin list-modules`).
func HasModule(bin, id string) (bool, error) {
	out, err := exec.Command(bin, "list-modules").Output()
	if err != nil {
		return false, fmt.Errorf("%s list-modules: %w", bin, err)
	}
	return slices.Contains(strings.Fields(string(out)), id), nil
}
