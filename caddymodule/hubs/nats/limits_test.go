package natshub

import (
	"errors"
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestShareLimitsWithNATSUnreachable(t *testing.T) {
	h := offlineHub(t, false, 10)
	publish, stop, err := h.ShareLimits("per key", func([]byte) {}, func() {})
	if err != nil {
		t.Fatalf("ShareLimits with NATS unreachable: %v", err)
	}
	if err := publish([]byte("report")); err == nil {
		t.Error("a report published with NATS unreachable, want an error")
	}
	stop()
	stop()
	if err := publish([]byte("report")); !errors.Is(err, rpccore.ErrHubClosed) {
		t.Errorf("publish after stop: %v, want ErrHubClosed", err)
	}
	h.Close()
	if _, _, err := h.ShareLimits("z", func([]byte) {}, func() {}); !errors.Is(err, rpccore.ErrHubClosed) {
		t.Errorf("ShareLimits on a closed hub: %v, want ErrHubClosed", err)
	}
}
