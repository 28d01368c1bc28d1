package wsload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// DeliveryConfig describes one delivery measurement.
type DeliveryConfig struct {
	// BroadcastConfig is the session: the subscribers, read through
	// Reader, and the publishers. Its Timeout also bounds the wait for the
	// last message of the stream once publishing stops.
	BroadcastConfig
	// LatencyWarmup and LatencyRuns are the messages published one at a
	// time before and while timing.
	LatencyWarmup, LatencyRuns int
	Stream                     pipeline.Windows // the timing of the stream of publishes
	// InFlight bounds the publish calls unanswered on each publishing
	// connection; Lag bounds the messages published that some subscriber
	// has not read yet. Below the servers' send queue, Lag keeps any
	// notification from being dropped.
	InFlight, Lag int
	// Clocks, when set, are read at the start and the end of every window:
	// each returns the CPU time some processes have used so far.
	Clocks map[string]func() (time.Duration, error)
}

// DeliveryResult is what Delivery measured.
type DeliveryResult struct {
	// Latency holds the timed messages' delivery times: from just before
	// the publish request is written until the last subscriber has read
	// the notification.
	Latency []time.Duration
	// Rates are the notifications read by all subscribers together per
	// second, one per window.
	Rates []float64
	// Busy holds, for each of the Clocks, the CPU time used per second of
	// each window: the cores kept busy.
	Busy map[string][]float64
}

// Delivery opens the session and publishes probes until every subscriber
// has one, so that the subscriptions are live on every server. It then
// times messages published one at a time, each once every subscriber has
// the one before, then keeps publishing within InFlight and Lag and counts
// the notifications all subscribers read in each window. Once publishing
// stops every subscriber must have read every message, once: a
// notification dropped, repeated or foreign fails the measurement.
func Delivery(ctx context.Context, cfg DeliveryConfig) (DeliveryResult, error) {
	var res DeliveryResult
	if cfg.LatencyRuns < 1 || !cfg.Stream.Valid() || cfg.InFlight < 1 || cfg.Lag < 1 {
		return res, errors.New("wsload: delivery needs runs, windows and bounds")
	}
	s, err := openSession(ctx, cfg.BroadcastConfig, func(ctx context.Context, url string) (Messages, error) {
		return DialReader(ctx, url)
	})
	if err != nil {
		return res, err
	}
	defer s.Close()
	s.probing.Store(true)
	d := &deliverer{cfg: cfg, s: s}
	if err := d.probe(ctx); err != nil {
		return res, err
	}
	if res.Latency, err = Times(ctx, s, cfg.LatencyWarmup, cfg.LatencyRuns); err != nil {
		return res, err
	}
	res.Busy = map[string][]float64{}
	if res.Rates, err = d.stream(ctx, res.Busy); err != nil {
		return res, err
	}
	return res, nil
}

type deliverer struct {
	cfg DeliveryConfig
	s   *session
}

// probe publishes a probe every 50 ms until every subscriber has read one,
// then lets the last ones arrive before probes count as messages again.
func (d *deliverer) probe(ctx context.Context) error {
	end := time.Now().Add(d.cfg.Timeout)
	for {
		live := 0
		for i := range d.s.ls {
			if d.s.ls[i].probed.Load() {
				live++
			}
		}
		if live == len(d.s.ls) {
			break
		}
		if time.Now().After(end) {
			return fmt.Errorf("wsload: %d of %d subscribers had no probe within %v", len(d.s.ls)-live, len(d.s.ls),
				d.cfg.Timeout)
		}
		for _, p := range d.s.pubs {
			d.s.id++
			if err := p.c.Send(d.cfg.Publish(d.s.id, "probe")); err != nil {
				return err
			}
			p.sent++
		}
		if err := pipeline.Wait(ctx, d.s.failed, 50*time.Millisecond); err != nil {
			return err
		}
	}
	err := pipeline.Wait(ctx, d.s.failed, 200*time.Millisecond)
	d.s.probing.Store(false)
	return err
}

// stream publishes from another goroutine while it counts the windows and
// reads the clocks into busy, then stops and waits until every subscriber
// has read every message.
func (d *deliverer) stream(ctx context.Context, busy map[string][]float64) ([]float64, error) {
	var stop atomic.Bool
	pumped := make(chan error, 1)
	go func() {
		err := d.pump(&stop)
		if err != nil {
			d.s.fail(err)
		}
		pumped <- err
	}()
	type mark struct {
		at     time.Time
		clocks map[string]time.Duration
	}
	var marks []mark
	var clockErr error
	rates, windowErr := d.cfg.Stream.Rates(ctx, d.s.failed, func() int64 {
		_, n := d.s.counts()
		m := mark{at: time.Now(), clocks: map[string]time.Duration{}}
		for name, f := range d.cfg.Clocks {
			v, err := f()
			m.clocks[name], clockErr = v, cmp.Or(clockErr, err)
		}
		marks = append(marks, m)
		return n
	})
	stop.Store(true)
	var err error
	select {
	case err = <-pumped:
	case <-time.After(d.cfg.Timeout):
		// A write that waits for a server that no longer reads: closing
		// the publishers ends it.
		for _, p := range d.s.pubs {
			p.c.Close()
		}
		<-pumped
		err = fmt.Errorf("wsload: a publisher's write still waited %v after publishing stopped", d.cfg.Timeout)
	}
	if err = cmp.Or(windowErr, err, clockErr); err != nil {
		return nil, err
	}
	for i := 1; i < len(marks); i++ {
		for name, v := range marks[i].clocks {
			busy[name] = append(busy[name], (v-marks[i-1].clocks[name]).Seconds()/marks[i].at.Sub(marks[i-1].at).Seconds())
		}
	}
	end := time.Now().Add(d.cfg.Timeout)
	for least, _ := d.s.counts(); least < d.s.published; least, _ = d.s.counts() {
		if time.Now().After(end) {
			return nil, fmt.Errorf("wsload: a subscriber read %d of the %d messages published, %v after the last",
				least, d.s.published, d.cfg.Timeout)
		}
		if err := pipeline.Wait(ctx, d.s.failed, 5*time.Millisecond); err != nil {
			return nil, err
		}
	}
	for i := range d.s.ls {
		if n := d.s.ls[i].n.Load(); n != d.s.published {
			return nil, fmt.Errorf("wsload: a subscriber read %d notifications of %d messages published", n, d.s.published)
		}
	}
	return rates, nil
}

// pump publishes until stop, within the bounds of the configuration, and
// flushes what it wrote each time it finds no room for more.
func (d *deliverer) pump(stop *atomic.Bool) error {
	least, _ := d.s.counts()
	dirty := make([]bool, len(d.s.pubs))
	for !stop.Load() {
		room := int64(d.cfg.Lag) - (d.s.published - least)
		if room <= 0 {
			least, _ = d.s.counts()
			room = int64(d.cfg.Lag) - (d.s.published - least)
		}
		wrote := 0
		for ; room > 0 && wrote < 64; room-- {
			i := int(d.s.published % int64(len(d.s.pubs)))
			p := d.s.pubs[i]
			if p.sent-p.answered.Load() >= int64(d.cfg.InFlight) {
				break
			}
			if _, err := d.s.send("s" + strconv.FormatInt(d.s.published, 10)); err != nil {
				return err
			}
			d.s.published++
			dirty[i] = true
			wrote++
		}
		for i, p := range d.s.pubs {
			if dirty[i] {
				if err := p.c.Flush(); err != nil {
					return err
				}
				dirty[i] = false
			}
		}
		if wrote == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}
