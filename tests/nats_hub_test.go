package tests

// nats_hub_test.go drives the NATS hub (caddymodule/hubs/nats) with an
// embedded NATS server: two hubs on one server are two Caddy nodes. This
// file holds live delivery across them; the resume and fault tests have
// files of their own.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	natshub "github.com/caddy-jsonrpc/caddy-jsonrpc/caddymodule/hubs/nats"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestNATSHubCrossNodeDeliveryInOrder(t *testing.T) {
	for _, mode := range histories {
		t.Run(mode.name, func(t *testing.T) {
			n := startNATS(t)
			a := newHub(t, n.URL, "cross", "node-a", mode.history)
			b := newHub(t, n.URL, "cross", "node-b", mode.history)
			onA, onB := subscribe(t, a, "demo.chat"), subscribe(t, b, "demo.chat")
			const each = 300
			var wg sync.WaitGroup
			for _, p := range []struct {
				hub  *natshub.Hub
				name string
			}{{a, "a"}, {b, "b"}} {
				wg.Go(func() {
					for i := range each {
						if err := p.hub.Publish("demo.chat", quote(p.name+strconv.Itoa(i))); err != nil {
							t.Errorf("publish on node %s: %v", p.name, err)
							return
						}
					}
				})
			}
			wg.Wait()
			gotA, gotB := onA.wait(t, 2*each), onB.wait(t, 2*each)
			time.Sleep(100 * time.Millisecond) // nothing more may come
			for node, box := range map[string]*mailbox{"a": onA, "b": onB} {
				msgs := box.all()
				var fromA, fromB []string
				for _, p := range payloads(msgs) {
					if strings.HasPrefix(p, "a") {
						fromA = append(fromA, p)
					} else {
						fromB = append(fromB, p)
					}
				}
				checkExactly(t, "node "+node+" from a", fromA, series("a", 0, each))
				checkExactly(t, "node "+node+" from b", fromB, series("b", 0, each))
				if mode.history != nil {
					checkPositions(t, msgs)
				}
			}
			if mode.history != nil {
				checkExactly(t, "the order on node b against node a", payloads(gotB), payloads(gotA))
			}
		})
	}
}

func TestNATSHubOneSubscriptionPerTopic(t *testing.T) {
	n := startNATS(t)
	a := newHub(t, n.URL, "fan", "node-a", &natshub.History{MaxMsgs: 1000})
	b := newHub(t, n.URL, "fan", "node-b", &natshub.History{MaxMsgs: 1000})
	const topics, perTopic = 20, 5
	var boxes [topics][perTopic]*mailbox
	var unsubs [topics][perTopic]func()
	for i := range topics {
		for j := range perTopic {
			boxes[i][j] = newMailbox()
			var err error
			if unsubs[i][j], err = a.Subscribe("topic "+strconv.Itoa(i), boxes[i][j].deliver); err != nil {
				t.Fatal(err)
			}
		}
	}
	if subs := liveSubjects(n, "node-a", "fan"); len(subs) != topics {
		t.Fatalf("node a holds %d topic subscriptions for %d topics with %d subscribers each: %v", len(subs), topics, perTopic, subs)
	}
	for i := range topics {
		if err := b.Publish("topic "+strconv.Itoa(i), quote("to "+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range topics {
		for j := range perTopic {
			got := payloads(boxes[i][j].wait(t, 1))
			checkExactly(t, fmt.Sprintf("subscriber %d of topic %d", j, i), got, []string{"to " + strconv.Itoa(i)})
		}
	}
	for j := range perTopic {
		if len(liveSubjects(n, "node-a", "fan")) != topics {
			t.Fatal("a topic subscription ended before its last subscriber left")
		}
		unsubs[0][j]()
	}
	eventually(t, "the topic's last subscriber's leaving ends its subscription", func() bool {
		return len(liveSubjects(n, "node-a", "fan")) == topics-1
	})
	for i := 1; i < topics; i++ {
		for j := range perTopic {
			unsubs[i][j]()
		}
	}
	eventually(t, "every subscription ends", func() bool { return len(liveSubjects(n, "node-a", "fan")) == 0 })
}

func TestNATSHubOddTopics(t *testing.T) {
	topics := []string{"", ".", "a..b", " ", "with space", "*", ">", "a.*.>", "%", "ü.日本", "tab\t", "demo.chat"}
	for _, mode := range histories {
		t.Run(mode.name, func(t *testing.T) {
			n := startNATS(t)
			a := newHub(t, n.URL, "odd", "node-a", mode.history)
			b := newHub(t, n.URL, "odd", "node-b", mode.history)
			boxes := make([]*mailbox, len(topics))
			for i, topic := range topics {
				boxes[i] = subscribe(t, a, topic)
			}
			for i, topic := range topics {
				if err := b.Publish(topic, quote("#"+strconv.Itoa(i))); err != nil {
					t.Fatalf("publish on %q: %v", topic, err)
				}
			}
			for i, topic := range topics {
				checkExactly(t, fmt.Sprintf("topic %q", topic), payloads(boxes[i].wait(t, 1)), []string{"#" + strconv.Itoa(i)})
			}
			time.Sleep(100 * time.Millisecond)
			for i, topic := range topics {
				if got := payloads(boxes[i].all()); len(got) != 1 {
					t.Errorf("topic %q got %v", topic, got)
				}
			}
			if mode.history == nil {
				return
			}
			epoch := boxes[0].all()[0].Position.Epoch
			for i, topic := range topics {
				msgs, ok, err := a.History(t.Context(), topic, rpccore.Position{Epoch: epoch})
				if err != nil || !ok {
					t.Fatalf("History of %q: ok %v, %v", topic, ok, err)
				}
				checkExactly(t, fmt.Sprintf("the history of %q", topic), payloads(msgs), []string{"#" + strconv.Itoa(i)})
			}
		})
	}
}

func TestNATSHubCaddyfileAdapts(t *testing.T) {
	adapted, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(`:8080 {
	jsonrpc {
		service demo
		hub nats {
			url nats://10.0.0.1:4222 nats://10.0.0.2:4222
			subject_prefix acme
			credentials /etc/caddy/hub.creds
			tls
			history {
				max_msgs 5000
				max_age 10m
			}
			storage memory
			max_pending 200
		}
	}
}
`), nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("adapting: %v, %v", err, warnings)
	}
	var config any
	if err := json.Unmarshal(adapted, &config); err != nil {
		t.Fatal(err)
	}
	handler := findHandler(config, "jsonrpc")
	got, _ := json.Marshal(handler["hub"])
	want := `{"credentials":"/etc/caddy/hub.creds","history":{"max_age":600000000000,"max_msgs":5000},"hub":"nats",` +
		`"max_pending":200,"storage":"memory","subject_prefix":"acme","tls":{},"urls":["nats://10.0.0.1:4222","nats://10.0.0.2:4222"]}`
	if string(got) != want {
		t.Errorf("the hub adapts to\n%s\nwant\n%s", got, want)
	}
}
