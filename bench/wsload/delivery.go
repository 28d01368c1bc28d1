package wsload

// delivery.go measures a chat broadcast to many subscribers spread over
// several servers, the nodes of one hub: the time one message takes to
// reach the last of them, and the notifications they read per second from
// a sustained stream of publishes.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/pipeline"
)

// DeliveryConfig describes one delivery measurement.
type DeliveryConfig struct {
	// SubscriberURLs are the ws:// endpoints, on loopback, the subscribers
	// spread over: subscriber i dials SubscriberURLs[i%len].
	SubscriberURLs []string
	// PublisherURLs each get one publishing connection; the messages are
	// published through them in turn.
	PublisherURLs []string
	// Subscribers is the number of subscribing connections, one
	// subscription each.
	Subscribers int
	// Subscribe is the subscription request; its answer must be a success.
	Subscribe []byte
	// Publish returns the publish request for a message text.
	Publish func(id int, text string) []byte
	// Notification is the method name of the notifications.
	Notification string
	// LatencyWarmup and LatencyRuns are the messages published one at a
	// time, each once every subscriber has the one before, before and
	// while timing.
	LatencyWarmup, LatencyRuns int
	// Warmup is the stream's length before the first window; Windows
	// windows of Window each are counted.
	Warmup, Window time.Duration
	Windows        int
	// InFlight bounds the publish calls unanswered on each publishing
	// connection; Lag bounds the messages published that some subscriber
	// has not read yet. Below the servers' send queue, Lag keeps any
	// notification from being dropped.
	InFlight, Lag int
	// Timeout bounds each wait: for a message to reach every subscriber,
	// and for the last of the stream once publishing stops.
	Timeout time.Duration
	// Clocks, when set, are read at the start and the end of every
	// window: each returns the CPU time that some processes have used so
	// far.
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
	// Published is the number of messages published (probes left out);
	// every subscriber read every one of them, once.
	Published int64
}

// Delivery subscribes cfg.Subscribers connections spread over
// cfg.SubscriberURLs and publishes probes until every subscriber has one,
// so that the subscriptions are live on every server. It then times
// LatencyWarmup+LatencyRuns messages published one at a time, then keeps
// publishing, InFlight calls at most unanswered on each publishing
// connection and Lag messages at most not yet read by every subscriber,
// and counts the notifications all subscribers read in each window after
// Warmup. Once publishing stops it waits until every subscriber has read
// every message, once: a notification dropped, repeated or foreign fails
// the measurement.
func Delivery(ctx context.Context, cfg DeliveryConfig) (DeliveryResult, error) {
	var res DeliveryResult
	if cfg.Subscribers < 1 || len(cfg.SubscriberURLs) == 0 || len(cfg.PublisherURLs) == 0 || cfg.Publish == nil ||
		cfg.LatencyRuns < 1 || cfg.Windows < 1 || cfg.Window <= 0 || cfg.InFlight < 1 || cfg.Lag < 1 {
		return res, errors.New("wsload: delivery needs subscribers, servers, publishers, runs, windows and bounds")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	a := &audience{
		notification: []byte(`"method":"` + cfg.Notification + `"`),
		probe:        []byte(`"result":"probe"`),
		failed:       make(chan error, cfg.Subscribers+len(cfg.PublisherURLs)+1),
	}
	defer a.close()
	if err := a.dial(ctx, cfg); err != nil {
		return res, err
	}
	d := &deliverer{cfg: cfg, a: a}
	if err := d.probe(ctx); err != nil {
		return res, err
	}
	for i := range cfg.LatencyWarmup + cfg.LatencyRuns {
		t, err := d.timeOne(ctx, i)
		if err != nil {
			return res, err
		}
		if i >= cfg.LatencyWarmup {
			res.Latency = append(res.Latency, t)
		}
	}
	res.Busy = map[string][]float64{}
	rates, err := d.stream(ctx, res.Busy)
	if err != nil {
		return res, err
	}
	res.Rates, res.Published = rates, d.published
	return res, nil
}

// listener is one subscriber: its connection and the notifications it
// has read, alone on its cache lines so that the readers on other cores
// do not share them.
type listener struct {
	r      *Reader
	n      atomic.Int64
	probed atomic.Bool
	_      [104]byte
}

// publisher is one publishing connection and its calls.
type publisher struct {
	c        *Conn
	sent     int64 // written by the publishing goroutine only
	answered atomic.Int64
}

// audience is the subscribers and the publishing connections.
type audience struct {
	notification, probe []byte
	ls                  []listener
	pubs                []*publisher
	round               round
	probing             atomic.Bool
	stopping            atomic.Bool
	failed              chan error
	wg                  sync.WaitGroup
}

// dial opens the subscribers and the publishers, subscribes every
// subscriber, and starts a reader on every connection.
func (a *audience) dial(ctx context.Context, cfg DeliveryConfig) error {
	a.ls = make([]listener, cfg.Subscribers)
	a.probing.Store(true)
	readers, err := pipeline.Open(ctx, cfg.Subscribers, 16, func(ctx context.Context, i int) (*Reader, error) {
		r, err := DialReader(ctx, cfg.SubscriberURLs[i%len(cfg.SubscriberURLs)])
		if err == nil {
			if err = subscribeReader(r, cfg.Subscribe, cfg.Timeout); err != nil {
				r.Close()
			}
		}
		return r, err
	})
	if err != nil {
		return err
	}
	for i, r := range readers {
		a.ls[i].r = r
	}
	for _, u := range cfg.PublisherURLs {
		c, err := Dial(ctx, u)
		if err != nil {
			return err
		}
		a.pubs = append(a.pubs, &publisher{c: c})
	}
	for i := range a.ls {
		l := &a.ls[i]
		a.wg.Go(func() { a.listen(l) })
	}
	for _, p := range a.pubs {
		a.wg.Go(func() { a.drain(p) })
	}
	return nil
}

// subscribeReader sends sub on r and checks its answer, which must come
// within timeout.
func subscribeReader(r *Reader, sub []byte, timeout time.Duration) error {
	if err := r.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if err := r.Send(sub); err != nil {
		return err
	}
	msg, err := r.ReadMessage(nil)
	if err == nil {
		err = r.SetReadDeadline(time.Time{})
	}
	if err != nil {
		return fmt.Errorf("wsload: subscribe: %w", err)
	}
	if !bytes.Contains(msg, []byte(`"result":`)) || bytes.Contains(msg, []byte(`"error":`)) {
		return fmt.Errorf("wsload: subscribe answered %.200s", msg)
	}
	return nil
}

// fail hands err on unless the audience is closing.
func (a *audience) fail(err error) {
	if a.stopping.Load() {
		return
	}
	select {
	case a.failed <- err:
	default:
	}
}

// listen reads one subscriber's notifications until its connection ends:
// each must be a notification; a probe marks the subscriber live while the
// audience probes, and every other one is counted.
func (a *audience) listen(l *listener) {
	var buf []byte
	for {
		msg, err := l.r.ReadMessage(buf)
		if err != nil {
			a.fail(fmt.Errorf("wsload: subscriber: %w", err))
			return
		}
		if !bytes.Contains(msg, a.notification) {
			a.fail(fmt.Errorf("wsload: subscriber got %.200s", msg))
			return
		}
		switch {
		case a.probing.Load() && bytes.Contains(msg, a.probe):
			l.probed.Store(true)
		default:
			if a.round.cur.Load() != nil {
				a.round.arrived(msg, time.Now().UnixNano())
			}
			l.n.Add(1)
		}
		buf = msg
	}
}

// drain reads a publisher's answers, which must be successes.
func (a *audience) drain(p *publisher) {
	var buf []byte
	for {
		msg, err := p.c.ReadMessage(buf)
		if err == nil && (bytes.Contains(msg, []byte(`"error":`)) || !bytes.Contains(msg, []byte(`"result":`))) {
			err = fmt.Errorf("publish answered %.200s", msg)
		}
		if err != nil {
			a.fail(fmt.Errorf("wsload: publisher: %w", err))
			return
		}
		p.answered.Add(1)
		buf = msg
	}
}

// close closes every connection and waits for the readers.
func (a *audience) close() {
	a.stopping.Store(true)
	for i := range a.ls {
		if r := a.ls[i].r; r != nil {
			r.Close()
		}
	}
	for _, p := range a.pubs {
		p.c.Close()
	}
	a.wg.Wait()
}

// counts returns the fewest notifications a subscriber has read, and all
// of theirs together.
func (a *audience) counts() (least, total int64) {
	least = -1
	for i := range a.ls {
		n := a.ls[i].n.Load()
		total += n
		if least < 0 || n < least {
			least = n
		}
	}
	return least, total
}

// deliverer publishes to an audience.
type deliverer struct {
	cfg       DeliveryConfig
	a         *audience
	published int64 // counted messages published, probes left out
	id        int
}

// send queues message text on the next publisher in turn and returns the
// publisher it went to.
func (d *deliverer) send(text string) (*publisher, error) {
	p := d.a.pubs[d.published%int64(len(d.a.pubs))]
	d.id++
	if err := p.c.Write(d.cfg.Publish(d.id, text)); err != nil {
		return nil, err
	}
	p.sent++
	return p, nil
}

// wait waits for done, a failure, ctx or the timeout, which what names.
func (d *deliverer) wait(ctx context.Context, done <-chan struct{}, what func() string) error {
	t := time.NewTimer(d.cfg.Timeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case err := <-d.a.failed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return errors.New("wsload: " + what())
	}
}

// probe publishes a probe every 50 ms until every subscriber has read one,
// then lets the last ones arrive before probes count as messages again.
func (d *deliverer) probe(ctx context.Context) error {
	end := time.Now().Add(d.cfg.Timeout)
	for {
		live := 0
		for i := range d.a.ls {
			if d.a.ls[i].probed.Load() {
				live++
			}
		}
		if live == len(d.a.ls) {
			break
		}
		if time.Now().After(end) {
			return fmt.Errorf("wsload: %d of %d subscribers had no probe within %v", len(d.a.ls)-live, len(d.a.ls),
				d.cfg.Timeout)
		}
		for _, p := range d.a.pubs {
			d.id++
			if err := p.c.Send(d.cfg.Publish(d.id, "probe")); err != nil {
				return err
			}
			p.sent++
		}
		select {
		case err := <-d.a.failed:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	select {
	case err := <-d.a.failed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(200 * time.Millisecond):
	}
	d.a.probing.Store(false)
	return nil
}

// timeOne publishes message i alone and returns the time until the last
// subscriber has read it.
func (d *deliverer) timeOne(ctx context.Context, i int) (time.Duration, error) {
	text := "m" + strconv.Itoa(i)
	st := d.a.round.start(strconv.Quote(text), len(d.a.ls))
	defer d.a.round.cur.Store(nil)
	start := time.Now()
	p, err := d.send(text)
	if err == nil {
		err = p.c.Flush()
	}
	if err != nil {
		return 0, err
	}
	d.published++
	err = d.wait(ctx, st.done, func() string {
		return fmt.Sprintf("%d of %d subscribers still wait for %s after %v", st.waiting.Load(), len(d.a.ls), text,
			d.cfg.Timeout)
	})
	return time.Duration(st.last.Load() - start.UnixNano()), err
}

// stream publishes from another goroutine while it counts the windows and
// reads the clocks into busy, then stops and waits until every subscriber
// has read every message.
func (d *deliverer) stream(ctx context.Context, busy map[string][]float64) ([]float64, error) {
	var stop atomic.Bool
	pumped := make(chan error, 1)
	go func() { pumped <- d.pump(&stop) }()
	halt := func() error {
		stop.Store(true)
		select {
		case err := <-pumped:
			return err
		case <-time.After(d.cfg.Timeout):
			// A write that waits for a server that no longer reads: closing
			// the publishers ends it.
			for _, p := range d.a.pubs {
				p.c.Close()
			}
			<-pumped
			return fmt.Errorf("wsload: a publisher's write still waited %v after publishing stopped", d.cfg.Timeout)
		}
	}
	pause := func(t time.Duration) error {
		select {
		case <-time.After(t):
			return nil
		case err := <-d.a.failed:
			return err
		case err := <-pumped:
			pumped <- err
			if err == nil {
				err = errors.New("wsload: publishing stopped")
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := pause(d.cfg.Warmup); err != nil {
		halt()
		return nil, err
	}
	clocks := func() (map[string]time.Duration, error) {
		m := map[string]time.Duration{}
		for name, f := range d.cfg.Clocks {
			v, err := f()
			if err != nil {
				return nil, fmt.Errorf("wsload: clock %s: %w", name, err)
			}
			m[name] = v
		}
		return m, nil
	}
	c0, err := clocks()
	if err != nil {
		halt()
		return nil, err
	}
	_, n0 := d.a.counts()
	t0 := time.Now()
	var rates []float64
	for range d.cfg.Windows {
		if err := pause(d.cfg.Window); err != nil {
			halt()
			return nil, err
		}
		_, n1 := d.a.counts()
		t1 := time.Now()
		c1, err := clocks()
		if err != nil {
			halt()
			return nil, err
		}
		secs := t1.Sub(t0).Seconds()
		rates = append(rates, float64(n1-n0)/secs)
		for name, v := range c1 {
			busy[name] = append(busy[name], (v-c0[name]).Seconds()/secs)
		}
		n0, t0, c0 = n1, t1, c1
	}
	if err := halt(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		for {
			least, _ := d.a.counts()
			if least >= d.published {
				close(done)
				return
			}
			select {
			case <-quit:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	err = d.wait(ctx, done, func() string {
		least, _ := d.a.counts()
		return fmt.Sprintf("a subscriber read %d of the %d messages published, %v after the last", least,
			d.published, d.cfg.Timeout)
	})
	if err != nil {
		return nil, err
	}
	for i := range d.a.ls {
		if n := d.a.ls[i].n.Load(); n != d.published {
			return nil, fmt.Errorf("wsload: a subscriber read %d notifications of %d messages published", n, d.published)
		}
	}
	return rates, nil
}

// pump publishes until stop, within the bounds of the configuration, and
// flushes what it wrote each time it finds no room for more.
func (d *deliverer) pump(stop *atomic.Bool) error {
	least, _ := d.a.counts()
	dirty := make([]bool, len(d.a.pubs))
	for !stop.Load() {
		room := int64(d.cfg.Lag) - (d.published - least)
		if room <= 0 {
			least, _ = d.a.counts()
			room = int64(d.cfg.Lag) - (d.published - least)
		}
		wrote := 0
		for ; room > 0 && wrote < 64; room-- {
			i := int(d.published % int64(len(d.a.pubs)))
			p := d.a.pubs[i]
			if p.sent-p.answered.Load() >= int64(d.cfg.InFlight) {
				break
			}
			if _, err := d.send("s" + strconv.FormatInt(d.published, 10)); err != nil {
				return err
			}
			d.published++
			dirty[i] = true
			wrote++
		}
		for i, p := range d.a.pubs {
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
