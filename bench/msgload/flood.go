package msgload

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// that sends 1, 2, 3, ... as fast as the client reads.
type FloodConfig struct {
	Subscribe    []byte           // the subscription request; its answer carries the id
	Notification string           // the method name of the notifications
	Windows      pipeline.Windows // times the run
}

// Flood subscribes over a connection to addr and returns the notifications
// per second of each window: a stream connection for network "tcp" or
// "unix", and with no network (as childserve.Server has for a URL) a
// WebSocket connection to the ws:// URL addr read with Reader, the
// cheapest. Every notification must be the subscription's and carry the
// number after the last.
func Flood(ctx context.Context, network, addr string, cfg FloodConfig) ([]float64, error) {
	var c Messages
	var err error
	if network == "" {
		c, err = DialReader(ctx, addr)
	} else {
		c, err = DialStream(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	id, err := Subscribe(c, cfg.Subscribe, 30*time.Second)
	if err == nil && (len(id) < 3 || id[0] != '"') {
		err = fmt.Errorf("msgload: subscribed as %s", id)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	head := []byte(`{"jsonrpc":"2.0","method":"` + cfg.Notification + `","params":{"subscription":` + string(id) + `,"result":`)
	var got atomic.Int64
	g := pipeline.NewGroup(ctx)
	g.Go(func() error {
		var buf []byte
		for n := int64(1); ; n++ {
			msg, err := c.ReadMessage(buf)
			if err == nil {
				err = checkItem(msg, head, n)
			}
			if err != nil {
				return err
			}
			got.Store(n)
			buf = msg
		}
	})
	defer g.Stop(func() { c.Close() })
	return cfg.Windows.Rates(g.Ctx, got.Load)
}

// checkItem fails unless msg is the notification of head carrying n.
func checkItem(msg, head []byte, n int64) error {
	rest, ok := bytes.CutPrefix(msg, head)
	if ok {
		rest, ok = bytes.CutSuffix(rest, []byte("}}"))
	}
	if !ok {
		return fmt.Errorf("msgload: item %d: not a notification of the subscription: %.200s", n, msg)
	}
	if v, err := strconv.ParseInt(string(rest), 10, 64); err != nil || v != n {
		return fmt.Errorf("msgload: item %d: got %s (a gap or a repeat)", n, rest)
	}
	return nil
}
