package msgload

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
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
	Latency []time.Duration      // the timed messages' delivery times, as OpenBroadcast times them
	Rates   []float64            // the notifications all subscribers read per second, one per window
	Busy    map[string][]float64 // for each of the Clocks, the CPU time used per second of each window
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
	s, err := openSession(ctx, cfg.BroadcastConfig, func(ctx context.Context, url string) (Messages, error) {
		return DialReader(ctx, url)
	})
	if err != nil {
		return res, err
	}
	defer s.Close()
	if err := s.probeAll(); err != nil {
		return res, err
	}
	if res.Latency, err = Times(ctx, s, cfg.LatencyWarmup, cfg.LatencyRuns); err != nil {
		return res, err
	}
	res.Rates, res.Busy, err = s.stream(cfg)
	return res, err
}

// probeAll publishes a probe every 50 ms until every subscriber has read
// one, then lets the last ones arrive before probes count as messages
// again.
func (s *session) probeAll() error {
	s.probing.Store(true)
	end := time.Now().Add(s.cfg.Timeout)
	for live := s.live.Load(); live < int64(len(s.ls)); live = s.live.Load() {
		if time.Now().After(end) {
			return fmt.Errorf("msgload: %d of %d subscribers had no probe within %v", int64(len(s.ls))-live,
				len(s.ls), s.cfg.Timeout)
		}
		for _, p := range s.pubs {
			if err := cmp.Or(s.send(p, "probe"), p.c.Flush(s.Ctx)); err != nil {
				return err
			}
		}
		if err := pipeline.Wait(s.Ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	err := pipeline.Wait(s.Ctx, 200*time.Millisecond)
	s.probing.Store(false)
	return err
}

// stream publishes from another goroutine while it counts the windows and
// reads the clocks, then stops and waits until every subscriber has read
// every message. It returns the rates and the cores each clock kept busy.
func (s *session) stream(cfg DeliveryConfig) ([]float64, map[string][]float64, error) {
	var stop atomic.Bool
	pumped := make(chan error, 1)
	go func() {
		err := s.pump(&stop, int64(cfg.InFlight), int64(cfg.Lag))
		if err != nil {
			s.Fail(err)
		}
		pumped <- err
	}()
	names := slices.Sorted(maps.Keys(cfg.Clocks))
	growth, err := cfg.Stream.Growth(s.Ctx, func() ([]float64, error) {
		_, n := s.counts()
		v := []float64{float64(n)}
		for _, name := range names {
			d, err := cfg.Clocks[name]()
			if err != nil {
				return nil, err
			}
			v = append(v, d.Seconds())
		}
		return v, nil
	})
	stop.Store(true)
	// A write that waits for a server that no longer reads: closing the
	// publishers ends it.
	late := time.AfterFunc(s.cfg.Timeout, func() {
		for _, p := range s.pubs {
			p.c.Close()
		}
	})
	pumpErr := <-pumped
	if !late.Stop() {
		pumpErr = fmt.Errorf("msgload: a publisher's write still waited %v after publishing stopped", s.cfg.Timeout)
	}
	if err = cmp.Or(err, pumpErr); err != nil {
		return nil, nil, err
	}
	end := time.Now().Add(s.cfg.Timeout)
	for least, _ := s.counts(); least < s.published; least, _ = s.counts() {
		if time.Now().After(end) {
			return nil, nil, fmt.Errorf("msgload: a subscriber read %d of the %d messages published, %v after the last",
				least, s.published, s.cfg.Timeout)
		}
		if err := pipeline.Wait(s.Ctx, 5*time.Millisecond); err != nil {
			return nil, nil, err
		}
	}
	if _, total := s.counts(); total != s.published*int64(len(s.ls)) {
		return nil, nil, fmt.Errorf("msgload: the subscribers read %d notifications of %d messages published to %d",
			total, s.published, len(s.ls))
	}
	rates, busy := make([]float64, len(growth)), map[string][]float64{}
	for w, g := range growth {
		rates[w] = g[0]
		for i, name := range names {
			busy[name] = append(busy[name], g[i+1])
		}
	}
	return rates, busy, nil
}

// pump publishes until stop, with at most inFlight calls unanswered on
// each publisher and lag messages unread by some subscriber, and flushes
// the publishers each time it finds no room for more (a flush of one that
// holds nothing returns at once).
func (s *session) pump(stop *atomic.Bool, inFlight, lag int64) error {
	least, _ := s.counts()
	for !stop.Load() {
		if lag <= s.published-least {
			least, _ = s.counts()
		}
		wrote := 0
		for room := lag - (s.published - least); room > 0 && wrote < 64; room-- {
			p := s.pubs[s.published%int64(len(s.pubs))]
			if p.sent-p.answered.Load() >= inFlight {
				break
			}
			if err := s.send(p, "s"+strconv.FormatInt(s.published, 10)); err != nil {
				return err
			}
			s.published++
			wrote++
		}
		for _, p := range s.pubs {
			if err := p.c.Flush(s.Ctx); err != nil {
				return err
			}
		}
		if wrote == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}
