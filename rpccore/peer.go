package rpccore

// peer.go serves a long-lived, message-oriented connection: documents are
// read one after another, answered as they finish (pipelining), and the
// server can push notifications and call the client over the same
// connection. The transport (WebSocket, TCP framing, a browser port) only
// moves messages.

import (
	"context"
	"errors"
	"sync"
	"time"
)

// MessageConn is a message-oriented duplex connection. ServePeer reads from
// one goroutine and writes from another.
//
// A MessageConn that also implements ReadInterrupter is read on the
// goroutine that called ServePeer, so an idle connection costs one
// goroutine; any other is read on a second goroutine, which ServePeer
// leaves blocked in ReadMessage when it returns (the transport's closing
// of the connection ends it).
type MessageConn interface {
	// ReadMessage appends the next whole message to dst and returns it.
	ReadMessage(ctx context.Context, dst []byte) ([]byte, error)
	// WriteMessage sends one message; it may hold it until Flush.
	WriteMessage(ctx context.Context, msg []byte) error
	// Flush sends the messages WriteMessage holds, giving up when ctx ends.
	Flush(ctx context.Context) error
}

// ReadInterrupter is implemented by a MessageConn whose blocked ReadMessage
// can be made to return.
type ReadInterrupter interface {
	// InterruptRead makes a blocked ReadMessage, and every later one,
	// return an error at once. Writing must go on working. It may be
	// called more than once, from any goroutine.
	InterruptRead()
}

// WriteInterrupter is implemented by a MessageConn whose blocked Flush can
// be made to return. ServePeer calls InterruptWrite when it stops writing
// (at once when the connection failed, after ShutdownGrace on a
// shutdown); such a MessageConn need not watch Flush's context for its
// end, only check it before writing.
type WriteInterrupter interface {
	// InterruptWrite makes a blocked Flush, and every later one, return an
	// error at once.
	InterruptWrite()
}

// PeerConfig configures ServePeer. Zero fields take the defaults.
type PeerConfig struct {
	// Info is attached to the context of every call.
	Info *RequestInfo
	// MaxInFlight bounds the documents running on their own goroutines
	// (those calling Blocking methods); reading waits while it is reached.
	// Other documents run one after another as they are read. Default 64.
	MaxInFlight int
	// SendQueue bounds the notifications waiting to be written, and the
	// answers: past it, answers wait (and so does reading) and
	// notifications follow SlowConsumer. Default 1024.
	SendQueue int
	// SlowConsumer is what happens to notifications when the send queue is
	// full. Default DropOldest.
	SlowConsumer SlowConsumerPolicy
	// MaxSubscriptions bounds the subscriptions open on the connection.
	// Default 1024.
	MaxSubscriptions int
	// CallTimeout bounds calls the server makes to the client when their
	// context has no deadline. Default 30s.
	CallTimeout time.Duration
	// ShutdownGrace is how long a shutdown waits for running calls before
	// cancelling them. Default 5s.
	ShutdownGrace time.Duration
	// Events hears what happens on the connection, for metrics. Nil for
	// none.
	Events PeerEvents
}

// PeerEvents hears what happens on peer connections. Its methods must be
// quick and safe for concurrent use.
type PeerEvents interface {
	// MessagesIn counts messages read.
	MessagesIn(n int)
	// MessagesOut counts messages written.
	MessagesOut(n int)
	// SubscriptionsChanged counts subscriptions opened (+) and ended (-).
	SubscriptionsChanged(delta int)
	// NotificationsDropped counts notifications dropped for a slow client.
	NotificationsDropped(n int)
}

// noEvents is the PeerEvents that hears nothing.
type noEvents struct{}

func (noEvents) MessagesIn(int)           {}
func (noEvents) MessagesOut(int)          {}
func (noEvents) SubscriptionsChanged(int) {}
func (noEvents) NotificationsDropped(int) {}

func (c *PeerConfig) setDefaults() {
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 64
	}
	if c.SendQueue <= 0 {
		c.SendQueue = 1024
	}
	if c.MaxSubscriptions <= 0 {
		c.MaxSubscriptions = 1024
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 30 * time.Second
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 5 * time.Second
	}
	if c.Events == nil {
		c.Events = noEvents{}
	}
}

// ErrShutdown is returned by ServePeer when its context ended it: the
// answers already computed were written. Transports close with "going
// away" (1001 for WebSocket).
var ErrShutdown = errors.New("rpccore: server is shutting down")

// ErrPeerClosed is returned by operations on a peer whose connection ended.
var ErrPeerClosed = errors.New("rpccore: peer connection closed")

// Peer is one connection served by ServePeer. Methods reach it with
// PeerFrom to push notifications or call the client.
type Peer struct {
	srv  *Server
	conn MessageConn
	cfg  PeerConfig
	out  *outbox

	ctx    context.Context // the calls' context; ends with the connection
	cancel context.CancelFunc

	writeCtx    context.Context // the writer's; outlives ctx during a shutdown
	writeCancel context.CancelFunc

	slots   chan struct{}  // MaxInFlight tokens for deferred documents
	running sync.WaitGroup // deferred documents
	spawnMu sync.Mutex     // orders starting deferred documents and stopping
	stopped bool

	calls callTable
	subs  subscriptionTable

	failMu    sync.Mutex
	failed    error // why the peer must end (slow consumer, write error)
	fail      chan struct{}
	interrupt func() // stops the reader when the peer fails; nil when it runs apart
}

type peerKey struct{}

// PeerFrom returns the peer whose call ctx belongs to, or nil (over HTTP).
func PeerFrom(ctx context.Context) *Peer {
	p, _ := ctx.Value(peerKey{}).(*Peer)
	return p
}

// ServePeer serves conn until the connection fails (it returns the read
// error), the peer cannot keep up under the Disconnect policy
// (ErrSlowConsumer), or ctx ends (ErrShutdown). On shutdown it stops
// reading, lets running calls finish for up to ShutdownGrace, and writes
// their answers before it returns. In every case the calls' contexts are
// cancelled and the subscriptions ended when it returns; the transport
// then closes conn.
func (s *Server) ServePeer(ctx context.Context, conn MessageConn, cfg PeerConfig) error {
	cfg.setDefaults()
	p := &Peer{
		srv:  s,
		conn: conn,
		cfg:  cfg,

		slots: make(chan struct{}, cfg.MaxInFlight),
		fail:  make(chan struct{}),
	}
	base := context.WithValue(context.Background(), peerKey{}, p)
	if cfg.Info != nil {
		base = WithRequestInfo(base, cfg.Info)
	}
	p.ctx, p.cancel = context.WithCancel(base)
	p.writeCtx, p.writeCancel = context.WithCancel(base)
	defer p.writeCancel()
	stopWriting := p.writeCancel
	if wi, ok := conn.(WriteInterrupter); ok {
		stopWriting = func() {
			p.writeCancel()
			wi.InterruptWrite()
		}
	}
	p.out = newOutbox(cfg.SendQueue, cfg.SlowConsumer, cfg.Events, p.writeLoop)
	p.subs.init(cfg.Events)

	var reason error
	if ri, ok := conn.(ReadInterrupter); ok {
		reason = p.readHere(ctx, ri)
	} else {
		reason = p.readApart(ctx)
	}
	p.spawnMu.Lock()
	p.stopped = true
	p.spawnMu.Unlock()
	if reason == ErrShutdown {
		p.waitRunning(cfg.ShutdownGrace)
	}
	p.cancel()
	p.subs.endAll()
	p.calls.failAll()
	p.running.Wait()
	if reason == ErrShutdown {
		// Write what is queued, unless the client stopped reading.
		timer := time.AfterFunc(cfg.ShutdownGrace, stopWriting)
		defer timer.Stop()
	} else {
		stopWriting()
	}
	p.out.close()
	return reason
}

// readHere reads on this goroutine until reading fails, the peer fails or
// ctx ends, and says why it stopped.
func (p *Peer) readHere(ctx context.Context, conn ReadInterrupter) error {
	p.failMu.Lock()
	p.interrupt = conn.InterruptRead
	failed := p.failed != nil
	p.failMu.Unlock()
	if failed {
		conn.InterruptRead()
	}
	stop := context.AfterFunc(ctx, conn.InterruptRead)
	err := p.readLoop(ctx.Done())
	stop()
	switch {
	case p.failure() != nil:
		return p.failure()
	case ctx.Err() != nil:
		return ErrShutdown
	}
	return err
}

// readApart reads on a goroutine of its own, which may outlive the call,
// until reading fails, the peer fails or ctx ends, and says why it stopped.
func (p *Peer) readApart(ctx context.Context) error {
	readerDone := make(chan error, 1)
	stopReading := make(chan struct{})
	defer close(stopReading)
	go func() { readerDone <- p.readLoop(stopReading) }()
	select {
	case err := <-readerDone:
		return err
	case <-p.fail:
		return p.failure()
	case <-ctx.Done():
		return ErrShutdown
	}
}

// maxKeptMessage bounds the read buffer a peer keeps between messages.
const maxKeptMessage = 64 << 10

// readLoop reads and dispatches documents until reading fails or stop is
// closed.
func (p *Peer) readLoop(stop <-chan struct{}) error {
	in := &inbound{deferBlocking: true, onResponse: p.calls.deliver}
	batch := &docState{}
	ctx := context.WithValue(p.ctx, docStateKey{}, batch)
	var msg []byte
	for {
		if cap(msg) > maxKeptMessage {
			msg = nil // a large message's buffer is not kept for the next
		}
		var err error
		msg, err = p.conn.ReadMessage(p.ctx, msg[:0])
		if err != nil {
			return err
		}
		p.cfg.Events.MessagesIn(1)
		select {
		case <-stop:
			return ErrShutdown
		default:
		}
		out := getBuffer()
		answer, deferred := p.srv.process(ctx, msg, (*out)[:0], nil, in)
		if !deferred {
			p.sendAnswer(out, answer, batch)
			continue
		}
		putBuffer(out)
		select {
		case p.slots <- struct{}{}:
		case <-stop:
			return ErrShutdown
		case <-p.fail:
			return p.failure()
		}
		p.spawnMu.Lock()
		if p.stopped {
			p.spawnMu.Unlock()
			return ErrShutdown
		}
		p.running.Add(1)
		p.spawnMu.Unlock()
		go p.runDeferred(append([]byte(nil), msg...))
	}
}

// runDeferred answers a document that calls Blocking methods, on its own
// goroutine.
func (p *Peer) runDeferred(doc []byte) {
	defer func() {
		<-p.slots
		p.running.Done()
	}()
	state := &docState{}
	ctx := context.WithValue(p.ctx, docStateKey{}, state)
	out := getBuffer()
	answer, _ := p.srv.process(ctx, doc, (*out)[:0], nil, nil)
	p.sendAnswer(out, answer, state)
}

// sendAnswer queues an answer (if any), then lets the subscriptions that the
// document opened start sending: their notifications follow the answer
// that gave the client their ids.
func (p *Peer) sendAnswer(buf *[]byte, answer []byte, state *docState) {
	if len(answer) == 0 {
		putBuffer(buf)
	} else {
		*buf = answer
		if !p.out.pushAnswer(outMsg{head: answer, pooled: buf}) {
			putBuffer(buf)
		}
	}
	state.activate()
}

// waitRunning waits for deferred documents, for at most grace.
func (p *Peer) waitRunning(grace time.Duration) {
	done := make(chan struct{})
	go func() {
		p.running.Wait()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}

// writeLoop writes whatever is queued, flushing once per batch taken, and
// returns when the queue is empty.
func (p *Peer) writeLoop() {
	var scratch []byte
	for {
		msgs := p.out.take()
		if msgs == nil {
			return
		}
		failed := p.failure() != nil
		for i := range msgs {
			m := &msgs[i]
			if !failed {
				data := m.head
				if m.body != nil {
					scratch = append(append(append(scratch[:0], m.head...), m.body...), '}', '}')
					data = scratch
				}
				if err := p.conn.WriteMessage(p.writeCtx, data); err != nil {
					p.setFailure(err)
					failed = true
				}
			}
			if m.pooled != nil {
				putBuffer(m.pooled)
			}
		}
		if !failed {
			if err := p.conn.Flush(p.writeCtx); err != nil {
				p.setFailure(err)
			} else {
				p.cfg.Events.MessagesOut(len(msgs))
			}
		}
	}
}

// setFailure records the first reason the peer must end.
func (p *Peer) setFailure(err error) {
	p.failMu.Lock()
	first := p.failed == nil
	if first {
		p.failed = err
		close(p.fail)
	}
	interrupt := p.interrupt
	p.failMu.Unlock()
	if first && interrupt != nil {
		interrupt()
	}
}

func (p *Peer) failure() error {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	return p.failed
}

// Context returns the peer's context, which ends with the connection.
func (p *Peer) Context() context.Context { return p.ctx }

// Info returns the RequestInfo the transport gave, or nil.
func (p *Peer) Info() *RequestInfo { return p.cfg.Info }

// Dropped returns how many notifications were dropped for this peer under
// the DropOldest policy.
func (p *Peer) Dropped() uint64 { return p.out.droppedCount() }

// sendNotification queues a notification under the slow-consumer policy.
func (p *Peer) sendNotification(m outMsg) error {
	err := p.out.pushNotification(m)
	if errors.Is(err, ErrSlowConsumer) {
		p.setFailure(err)
	}
	return err
}

// bufferPool recycles answer buffers.
var bufferPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

func getBuffer() *[]byte { return bufferPool.Get().(*[]byte) }

// putBuffer returns b to the pool unless it grew too large to keep.
func putBuffer(b *[]byte) {
	if cap(*b) > 64<<10 {
		return
	}
	*b = (*b)[:0]
	bufferPool.Put(b)
}
