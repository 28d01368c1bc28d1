package rpccore

// peerdrain.go ends a peer on a shutdown without dropping what the client
// sent: the connection is read on until the client falls quiet, and what
// is read runs, for as long as the grace lasts; then the documents still
// waiting for a worker, and those read after, are answered -32001 "Server
// going away" ("not run"), and the calls still running -32001 too
// ("cancelled"), so that no call the client sent before the close goes
// unanswered.

import (
	"time"
)

// ReadDrainer is implemented by a MessageConn that can go on reading, for a
// while, after a shutdown began: ServePeer then reads what the client had
// sent (and what is still on its way) and answers it, rather than closing
// the connection with documents unread, which the client could not tell
// from documents lost. A MessageConn that is not one stops reading at once
// (ReadInterrupter).
type ReadDrainer interface {
	// DrainRead makes ReadMessage return the messages that arrive before
	// deadline, and then an error, rather than wait on. It is called from
	// another goroutine while ReadMessage waits, and then again, to move
	// the deadline, from the reading goroutine between reads.
	DrainRead(deadline time.Time)
}

// DrainQuiet is how long a peer that is shutting down waits for more of
// the client's input after the last message it read: a shutdown reads on
// until the client has been quiet that long, or for DrainMax at most.
const DrainQuiet = 250 * time.Millisecond

// DrainMax bounds how long a peer that is shutting down reads on, however
// busy its client: what the client sends later is not read, and the close
// tells it so.
const DrainMax = time.Second

// drainState is what a shutdown of a peer whose connection is a
// ReadDrainer keeps: when the grace ends, when reading ends at the latest,
// and the timer that stops handing documents to workers at the end of the
// grace.
type drainState struct {
	graceEnd   time.Time
	drainEnd   time.Time
	graceTimer *time.Timer
}

// beginDrain starts the shutdown of a peer whose connection is a
// ReadDrainer: the reader goes on until the client falls quiet, and the
// documents it reads run, until the grace ends; from then on a document
// for the workers is answered -32001 "not run". It runs once, when the
// peer's context ends.
func (p *Peer) beginDrain(conn ReadDrainer) {
	now := time.Now()
	p.drain.Store(&drainState{
		graceEnd:   now.Add(p.cfg.ShutdownGrace),
		drainEnd:   now.Add(DrainMax),
		graceTimer: time.AfterFunc(p.cfg.ShutdownGrace, p.stopSpawning),
	})
	conn.DrainRead(now.Add(DrainQuiet))
}

// next gives the client DrainQuiet for its next message, within DrainMax
// of the shutdown: the reader calls it before each read once the shutdown
// began.
func (d *drainState) next(conn ReadDrainer) {
	deadline := time.Now().Add(DrainQuiet)
	if deadline.After(d.drainEnd) {
		deadline = d.drainEnd
	}
	conn.DrainRead(deadline)
}

// answerDraining answers msg, a document for the workers read once the
// shutdown's grace was over, without running it: each of its calls -32001
// "not run". handle has scanned it, and found it valid: a single request's
// scan is still in p.single.
func (p *Peer) answerDraining(msg []byte) {
	out := getBuffer()
	var single *request
	if !isBatch(msg) {
		single = &p.single.single
	}
	p.queueAnswer(out, appendUnfinishedDoc(p.srv, (*out)[:0], msg, single, errBodyNotRun))
}

// spawnOrRefuse hands msg to a worker, as spawn does; when the shutdown's
// grace is over, msg was read but is not to run, and is answered so.
func (p *Peer) spawnOrRefuse(stop <-chan struct{}, msg []byte) error {
	err := p.spawn(stop, msg)
	if err != ErrShutdown {
		return err
	}
	if _, drains := p.conn.(ReadDrainer); !drains {
		return err
	}
	p.answerDraining(msg)
	return nil
}

// appendUnfinishedDoc appends the answer to text, a valid document the
// server did not finish, with the error body: single is its request when
// it is one, already scanned; a batch is scanned again.
func appendUnfinishedDoc(srv *Server, dst, text []byte, single *request, body []byte) []byte {
	if single != nil {
		return appendUnfinished(dst, single, body)
	}
	d := getDocument()
	defer putDocument(d)
	if _, refused := srv.readBatch(text, d, nil, nil); refused {
		return dst // refused documents are answered by the reader, never deferred
	}
	return appendUnfinishedBatch(dst, d.items, body)
}

// appendUnfinished appends the answer to r, a valid request the server
// did not finish, with the error body: nothing for a notification.
func appendUnfinished(dst []byte, r *request, body []byte) []byte {
	if r.isNotification() {
		return dst
	}
	return appendErrorBodyAnswer(dst, body, r.id)
}

// appendUnfinishedBatch appends the answer to a batch the server did not
// finish: each call answered with the error body, an invalid item -32600
// as always, notifications nothing.
func appendUnfinishedBatch(dst []byte, items []request, body []byte) []byte {
	start := len(dst)
	dst = append(dst, '[')
	for i := range items {
		r := &items[i]
		if r.isNotification() {
			continue
		}
		if len(dst) > start+1 {
			dst = append(dst, ',')
		}
		if r.invalid {
			dst = appendErrorBodyAnswer(dst, errBodyInvalid, r.idOrNull())
		} else {
			dst = appendErrorBodyAnswer(dst, body, r.id)
		}
	}
	if len(dst) == start+1 {
		return dst[:start]
	}
	return append(dst, ']')
}

// waitRunning waits for the deferred documents until the grace ends, and
// then answers those still waiting -32001 "not run" and those still
// running -32001 "cancelled": their own answers, should they come, are
// dropped.
func (p *Peer) waitRunning(graceEnd time.Time) {
	done := make(chan struct{})
	go func() {
		p.running.Wait()
		close(done)
	}()
	timer := time.NewTimer(time.Until(graceEnd))
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	for _, out := range p.abandonDeferred() {
		p.queueAnswer(out, *out)
	}
}

// abandonDeferred takes the documents waiting out of the queue and
// answers them -32001 "not run", and answers the documents running -32001
// "cancelled" unless they have answered already. It returns the answers,
// to be queued once the queue's lock is let go.
func (p *Peer) abandonDeferred() []*[]byte {
	q := &p.deferred
	q.mu.Lock()
	defer q.mu.Unlock()
	var answers []*[]byte
	add := func(doc *deferredDoc, body []byte) {
		if !doc.answered.CompareAndSwap(false, true) {
			return
		}
		out := getBuffer()
		*out = doc.appendUnfinished(p.srv, (*out)[:0], body)
		answers = append(answers, out)
	}
	for _, doc := range q.waiting[q.head:] {
		add(doc, errBodyNotRun)
		doc.release()
		p.running.Done()
	}
	clear(q.waiting)
	q.waiting, q.head = q.waiting[:0], 0
	for doc := q.runningDocs; doc != nil; doc = doc.next {
		add(doc, errBodyCancelled)
	}
	return answers
}

// appendUnfinished appends the answer to doc, not finished, with the
// error body.
func (doc *deferredDoc) appendUnfinished(srv *Server, dst []byte, body []byte) []byte {
	var single *request
	if doc.scanned {
		single = &doc.single
	}
	return appendUnfinishedDoc(srv, dst, doc.text, single, body)
}
