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
	"sync/atomic"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/internal/pending"
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

// ReadWaitNotifier is implemented by a MessageConn that can tell when its
// next read may wait for the network, having nothing received left to
// read. ServePeer then queues the answers of the documents read until then
// together, with one wake of its writer and one buffer, instead of one by
// one.
type ReadWaitNotifier interface {
	// BeforeReadWait sets f, which ReadMessage calls on its goroutine
	// before each read that may wait.
	BeforeReadWait(f func())
}

// Reframer is implemented by a MessageConn whose ReadMessage may return a
// message it has not fully checked, cheaper to find than the checked one:
// streamconn takes a line for a JSON value; wsconn leaves the UTF-8 of a
// text message to the peer's scan. The peer calls Reframe for every
// message that is not one valid JSON value within the size limit. A guess
// (a line may hold two values, or part of one) is then not answered: the
// next ReadMessage returns the same input framed exactly. A text message
// that is not UTF-8 is not answered either: the connection fails (1007),
// and the next ReadMessage says so. A message that is one valid value is
// what framing and checking it first would have given.
type Reframer interface {
	// Reframe reports whether the last message read is not to be
	// answered: a guess, which the next ReadMessage reads again framed
	// exactly, or input that fails the connection, whose error the next
	// ReadMessage returns.
	Reframe() bool
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
	// MaxInFlight bounds the documents running apart from the reader
	// (those calling Blocking methods), each on a worker goroutine of the
	// connection's, which stays for the next one. Once it is reached, as
	// many more are read and wait for a worker, in the order read; then
	// reading waits. Other documents run one after another as they are
	// read. Default 64.
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
}

func (c *PeerConfig) setDefaults() {
	c.MaxInFlight = orDefault(c.MaxInFlight, DefaultMaxInFlight)
	c.SendQueue = orDefault(c.SendQueue, DefaultSendQueue)
	c.MaxSubscriptions = orDefault(c.MaxSubscriptions, DefaultMaxSubscriptions)
	c.CallTimeout = orDefault(c.CallTimeout, DefaultCallTimeout)
	c.ShutdownGrace = orDefault(c.ShutdownGrace, DefaultShutdownGrace)
}

// ErrShutdown is returned by ServePeer when its context ended it: the
// answers already computed were written. Transports close with "going
// away" (1001 for WebSocket).
var ErrShutdown = errors.New("rpccore: server is shutting down")

// ErrEndOfInput is what a MessageConn's ReadMessage returns when the
// client has finished sending but may still be reading (a stream whose
// sending side the client closed). ServePeer then lets the calls under way
// finish, for up to ShutdownGrace, and writes their answers, as on a
// shutdown, before it returns ErrEndOfInput.
var ErrEndOfInput = errors.New("rpccore: end of input")

// ErrPeerClosed is returned by operations on a peer whose connection ended.
var ErrPeerClosed = errors.New("rpccore: peer connection closed")

// Peer is one connection served by ServePeer. Methods reach it with
// PeerFrom to push notifications or call the client.
type Peer struct {
	srv    *Server
	conn   MessageConn
	cfg    PeerConfig
	out    *outbox
	events PeerObserver

	ctx    context.Context // the calls' context; ends with the connection
	cancel context.CancelFunc

	writeCtx    context.Context // the writer's; outlives ctx during a shutdown
	writeCancel context.CancelFunc

	deferred deferredQueue  // deferred documents waiting for a worker (peerworkers.go)
	running  sync.WaitGroup // deferred documents, running or waiting
	work     chan struct{}  // wakes an idle worker to take the documents waiting; closed when they are to end; made with the first document deferred (spawn)
	idle     atomic.Int32   // workers waiting on work
	workers  sync.WaitGroup // workers, idle or not

	reframer Reframer // conn, when its messages may be guesses; nil otherwise

	// drain is set once a shutdown began on a connection that is a
	// ReadDrainer, which is then read until the client falls quiet
	// (peerdrain.go); nil until then, so that an open connection pays
	// one pointer for it.
	drain atomic.Pointer[drainState]

	// timing draws which of the calls the reader answers are timed.
	timing callSampler

	// single is the document handle reads a single request into: the
	// reader's own, reused, so that it is not on the reading goroutine's
	// stack, which an idle connection keeps.
	single document

	calls atomic.Pointer[pending.Table] // the server's calls to the client, made by the first (peercall.go)
	subs  subscriptionTable

	failMu    sync.Mutex
	failed    error         // why the peer must end (slow consumer, write error)
	fail      chan struct{} // closed once failed is set; made by the first to wait for it (failedChan)
	interrupt func()        // stops the reader when the peer fails; nil when it runs apart
}

// peerTurn is what the calls of one document see of their peer: the peer,
// and the subscriptions the document opens, which start sending once the
// peer has queued the document's answer. It is the one value a peer adds
// to its calls' context.
type peerTurn struct {
	peer   *Peer
	opened []*Subscription
}

type peerKey struct{}

// turnFrom returns the peerTurn of a call's context, or nil (over HTTP).
func turnFrom(ctx context.Context) *peerTurn {
	t, _ := ctx.Value(peerKey{}).(*peerTurn)
	return t
}

// PeerFrom returns the peer whose call ctx belongs to, or nil (over HTTP).
func PeerFrom(ctx context.Context) *Peer {
	if t := turnFrom(ctx); t != nil {
		return t.peer
	}
	return nil
}

// activate lets the subscriptions the document opened start sending.
func (t *peerTurn) activate() {
	for _, s := range t.opened {
		s.activate()
	}
	t.forget()
}

// forget drops the subscriptions the document opened without starting
// them: its answer was not sent, so the client has not their ids. They
// end with the connection.
func (t *peerTurn) forget() {
	clear(t.opened)
	t.opened = t.opened[:0]
}

// ServePeer serves conn until the connection fails (it returns the read
// error), the peer cannot keep up under the Disconnect policy
// (ErrSlowConsumer), or ctx ends (ErrShutdown). On shutdown, over a
// ReadDrainer, it reads on until the client falls quiet (DrainQuiet,
// DrainMax) and serves what it reads (any other MessageConn stops reading
// at once); it lets the calls finish for up to ShutdownGrace, answers
// those still unfinished then -32001 "Server going away", and writes the
// answers before it returns (peerdrain.go). In every case the calls'
// contexts are cancelled and the subscriptions ended when it returns; the transport
// then closes conn. The calls' contexts carry the values of ctx (not its
// end: the calls outlive it by the grace).
func (s *Server) ServePeer(ctx context.Context, conn MessageConn, cfg PeerConfig) error {
	cfg.setDefaults()
	p := &Peer{
		srv:  s,
		conn: conn,
		cfg:  cfg,

		events: s.cfg.peerEvents,
	}
	base := context.WithValue(context.WithoutCancel(ctx), peerKey{}, &peerTurn{peer: p})
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
	p.reframer, _ = conn.(Reframer)
	p.out = newOutbox(cfg.SendQueue, cfg.SlowConsumer, p.events, p.writeLoop)
	p.subs.init(p.events)

	var reason error
	if ri, ok := conn.(ReadInterrupter); ok {
		reason = p.readHere(ctx, ri)
	} else {
		reason = p.readApart(ctx)
	}
	p.stopSpawning()
	draining := reason == ErrShutdown || errors.Is(reason, ErrEndOfInput)
	if draining {
		graceEnd := time.Now().Add(cfg.ShutdownGrace)
		if d := p.drain.Load(); d != nil {
			graceEnd = d.graceEnd // from the start of the shutdown
			defer d.graceTimer.Stop()
		}
		p.waitRunning(graceEnd)
	}
	p.cancel()
	p.subs.endAll()
	p.endCalls()
	p.running.Wait()
	p.stopWorkers()
	if draining {
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
	end, spawnStop := conn.InterruptRead, ctx.Done()
	if d, ok := p.conn.(ReadDrainer); ok {
		// A shutdown lets the reader go on, and hand documents to the
		// workers until the grace is over.
		end, spawnStop = func() { p.beginDrain(d) }, nil
	}
	stop := context.AfterFunc(ctx, end)
	err := p.readLoop(spawnStop, false)
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
	go func() { readerDone <- p.readLoop(stopReading, true) }()
	select {
	case err := <-readerDone:
		return err
	case <-p.failedChan():
		return p.failure()
	case <-ctx.Done():
		return ErrShutdown
	}
}

// maxKeptMessage bounds the read buffer a peer keeps between messages.
const maxKeptMessage = 64 << 10

// readLoop reads and dispatches documents until reading fails or stop is
// closed: it looks at stop before each document when poll is set, and
// otherwise only while it waits (a reader whose reads stop's end
// interrupts need not look each time). For each document it takes the
// peer's own steps around the processor's: an answer to one of the peer's
// calls goes to the call; a document calling Blocking methods goes to a
// goroutine of its own; any other is answered here. A document's
// subscriptions start sending once its answer is queued.
func (p *Peer) readLoop(stop <-chan struct{}, poll bool) error {
	turn := &peerTurn{peer: p}
	ctx := context.WithValue(p.ctx, peerKey{}, turn)
	var batch *answerBatch
	if rw, ok := p.conn.(ReadWaitNotifier); ok {
		batch = &answerBatch{peer: p, turn: turn, max: min(maxBatchedAnswers, p.cfg.SendQueue)}
		rw.BeforeReadWait(batch.flush)
		defer batch.flush()
	}
	var msg []byte
	for {
		if cap(msg) > maxKeptMessage {
			msg = nil // a large message's buffer is not kept for the next
		}
		if d := p.drain.Load(); d != nil {
			d.next(p.conn.(ReadDrainer))
		}
		var err error
		msg, err = p.conn.ReadMessage(p.ctx, msg[:0])
		if err != nil {
			return err
		}
		if poll {
			select {
			case <-stop:
				return ErrShutdown
			default:
			}
		}
		if batch != nil {
			if batch.answer(ctx, msg) == deferred {
				if err := p.spawnOrRefuse(stop, msg); err != nil {
					return err
				}
			}
			continue
		}
		out := getBuffer()
		answer, step := p.handle(ctx, msg, (*out)[:0])
		if step != retracted {
			p.events.MessagesIn(1)
		}
		if step == deferred {
			putBuffer(out)
			if err := p.spawnOrRefuse(stop, msg); err != nil {
				return err
			}
			continue
		}
		p.sendAnswer(out, answer, turn)
	}
}

// handled says what handle did with a document.
type handled int

const (
	answered  handled = iota // answered (or handed to the call it answers)
	deferred                 // nothing run: it calls Blocking methods
	retracted                // nothing run: it was a guess (Reframer), to be read again
)

// handle takes the peer's steps for one document read: it answers it, or
// hands an answer to one of the peer's calls to that call, or runs nothing
// for a document calling Blocking methods (deferred) or for a guess of
// the connection's that is not one valid value (retracted).
func (p *Peer) handle(ctx context.Context, msg, dst []byte) (answer []byte, step handled) {
	srv := p.srv
	if len(msg) > srv.cfg.maxRequestBytes {
		if p.retract() {
			return dst, retracted
		}
		return srv.refuseSize(msg, dst, nil), answered
	}
	if isBatch(msg) {
		d := getDocument()
		defer putDocument(d)
		if out, refused := srv.readBatch(msg, d, dst, nil); refused {
			if d.invalidJSON && p.retract() {
				return dst, retracted
			}
			return out, answered
		}
		if srv.callsBlocking(d) {
			return dst, deferred
		}
		return srv.answerBatch(ctx, d, dst, nil, &p.timing), answered
	}
	d := &p.single
	*d = document{}
	switch {
	case !srv.readSingle(msg, d):
		if d.invalidJSON && p.retract() {
			return dst, retracted
		}
		return srv.refuseSingle(d, dst, nil), answered
	case d.single.isResponse():
		if t := p.calls.Load(); t != nil {
			t.Deliver(d.single.id, d.single.result, d.single.errVal)
		}
		return dst, answered
	case srv.callsBlocking(d):
		return dst, deferred
	}
	return srv.answerSingle(ctx, d, dst, &p.timing), answered
}

// retract reports whether the message just read was a guess of the
// connection's, which it will then read again framed exactly.
func (p *Peer) retract() bool { return p.reframer != nil && p.reframer.Reframe() }

// sendAnswer queues an answer (if any), then lets the subscriptions that the
// document opened start sending: their notifications follow the answer
// that gave the client their ids.
func (p *Peer) sendAnswer(buf *[]byte, answer []byte, turn *peerTurn) {
	p.queueAnswer(buf, answer)
	turn.activate()
}

// queueAnswer queues answer, written into buf, unless it is empty; buf
// goes back to the pool once the answer is written, or at once.
func (p *Peer) queueAnswer(buf *[]byte, answer []byte) {
	if len(answer) == 0 {
		putBuffer(buf)
		return
	}
	*buf = answer
	if !p.out.pushAnswer(outMsg{head: answer, pooled: buf}) {
		putBuffer(buf)
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
		written := 0
		for i := range msgs {
			m := &msgs[i]
			if m.run != nil {
				if !failed {
					written += len(m.run.ends)
					failed = p.writeRun(m.run)
				}
				putRun(m.run)
				continue
			}
			written++
			if !failed {
				data := m.head
				if m.body != nil {
					scratch = append(append(scratch[:0], m.head...), m.body...)
					if m.tail != nil {
						scratch = append(scratch, m.tail...)
					} else {
						scratch = append(scratch, '}', '}')
					}
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
				p.events.MessagesOut(written)
			}
		}
	}
}

// writeRun writes the answers of r one by one, and reports whether writing
// failed.
func (p *Peer) writeRun(r *answerRun) bool {
	start := 0
	for _, end := range r.ends {
		if err := p.conn.WriteMessage(p.writeCtx, r.buf[start:end]); err != nil {
			p.setFailure(err)
			return true
		}
		start = end
	}
	return false
}

// setFailure records the first reason the peer must end.
func (p *Peer) setFailure(err error) {
	p.failMu.Lock()
	first := p.failed == nil
	if first {
		p.failed = err
		if p.fail != nil {
			close(p.fail)
		}
	}
	interrupt := p.interrupt
	p.failMu.Unlock()
	if first && interrupt != nil {
		interrupt()
	}
}

// failedChan returns a channel closed once the peer has failed. It is
// made by the first caller: most peers never wait for a failure, and an
// idle connection's memory counts.
func (p *Peer) failedChan() <-chan struct{} {
	p.failMu.Lock()
	defer p.failMu.Unlock()
	if p.fail == nil {
		p.fail = make(chan struct{})
		if p.failed != nil {
			close(p.fail)
		}
	}
	return p.fail
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

// maxPooledBuffer bounds the answer buffers given back to a pool.
const maxPooledBuffer = 64 << 10

// putBuffer returns b to the pool unless it grew too large to keep.
func putBuffer(b *[]byte) {
	if cap(*b) > maxPooledBuffer {
		return
	}
	*b = (*b)[:0]
	bufferPool.Put(b)
}
