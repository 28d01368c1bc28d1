package tests

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestNATSClusterKeepsAStreamAcrossItsLeadersKill(t *testing.T) {
	t.Parallel() // independent: its own processes, ports and folders
	c := startNATSCluster(t)
	nc, err := nats.Connect(strings.Join(c.URLs(), ","), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	// Each call waits 2s at most and is tried again until it succeeds,
	// as the hub does: while a stream has no leader, a request goes
	// unanswered.
	retry := func(what string, call func(ctx context.Context) error) {
		t.Helper()
		var err error
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err = call(ctx)
			cancel()
			if err == nil {
				return
			}
		}
		t.Fatalf("%s: %v", what, err)
	}
	publish := func(i int) {
		retry("publish "+strconv.Itoa(i), func(ctx context.Context) error {
			_, err := js.Publish(ctx, "h.x", []byte("m"), jetstream.WithMsgID(strconv.Itoa(i)))
			return err
		})
	}
	retry("create the stream", func(ctx context.Context) error {
		_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "H", Subjects: []string{"h.>"}, Replicas: 3})
		return err
	})
	for i := range 10 {
		publish(i)
	}
	leader := c.streamLeader("H")
	start := time.Now()
	c.kill(leader)
	for i := 10; i < 20; i++ {
		publish(i)
	}
	t.Logf("%s led the stream; %s leads it %s after its kill", c.name(leader), c.name(c.streamLeader("H")), time.Since(start))
	c.restart(leader)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st, err := c.stream(leader, "H")
		if err == nil && st != nil && st.State.Msgs == 20 && st.State.LastSeq == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted server's copy of the stream: %+v %v", st, err)
		}
	}
	t.Logf("the restarted server holds the 20 messages %s after the kill", time.Since(start))
}
