package streamconn

// serve.go runs an rpccore peer over a stream, start to close.

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

// Serve serves srv over the connection until the client leaves, the
// connection fails, or ctx ends, then closes it. On shutdown and at the end
// of the client's input the answers already computed are written first. A
// message too large or input that cannot be framed is answered with one
// error (-32600 or -32700, id null) before the connection closes. It
// returns nil for a clean end: the client closed, or ctx ended.
func (c *Conn) Serve(ctx context.Context, srv *rpccore.Server, cfg rpccore.PeerConfig) error {
	if cfg.Info == nil {
		cfg.Info = &rpccore.RequestInfo{Transport: "stream", RemoteAddr: c.nc.RemoteAddr().String()}
	}
	err := srv.ServePeer(ctx, c, cfg)
	switch {
	case errors.Is(err, ErrMessageTooLarge):
		c.writeLast(tooLargeAnswer(c.opts.MaxMessage))
		c.linger()
	case errors.Is(err, ErrBadFraming):
		c.writeLast(parseErrorAnswer)
		c.linger()
	case errors.Is(err, rpccore.ErrShutdown):
		// What the client sent after the drain is left unread: closing
		// at once would reset the connection, and could destroy answers
		// the client has not read yet.
		c.linger()
		err = nil
	case errors.Is(err, rpccore.ErrEndOfInput):
		err = nil
	}
	_ = c.nc.Close()
	return err
}

// writeLast writes one last message, framed, bounded by the write timeout.
func (c *Conn) writeLast(msg []byte) {
	c.interruptedWrite.Store(false)
	_ = c.WriteMessage(context.Background(), msg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Flush(ctx)
}

// lingerTime bounds how long linger reads what the client still sends.
const lingerTime = 500 * time.Millisecond

// linger ends the sending side and reads, for a short while, what the
// client still sends: closing a socket with unread input resets the
// connection, which can destroy the last answer before the client reads it.
func (c *Conn) linger() {
	cw, ok := c.nc.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.Copy(io.Discard, c.nc)
}

// parseErrorAnswer answers input that cannot be framed.
var parseErrorAnswer = []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"the stream holds bytes that start no JSON value"},"id":null}`)

// tooLargeAnswer answers a message over the limit.
func tooLargeAnswer(limit int) []byte {
	return []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"message exceeds the limit of ` +
		strconv.Itoa(limit) + ` bytes"},"id":null}`)
}
