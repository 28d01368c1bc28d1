package httphandler

// hijack.go takes the connection of an upgraded request from beneath the
// wrapper Caddy's response recorder puts around it.

import (
	"net"
	"reflect"
)

// unwrapHijacked returns the connection beneath Caddy's hijacked-connection
// wrapper, or nc itself. The wrapper (caddyhttp's hijackedConn, which the
// access log's response recorder makes) counts the bytes read and written
// into the recorder without a lock, while the access log reads that count
// once the handler has returned, which it does at once here, leaving the
// connection to a goroutine of its own: served through the wrapper, the
// connection's writes race with the log entry. The wrapper also hides the
// socket's descriptor, which the reader uses to hold no buffer while a
// connection is idle. The access log then counts the 101 answer alone.
func unwrapHijacked(nc net.Conn) net.Conn {
	v := reflect.ValueOf(nc)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Type().String() != "*caddyhttp.hijackedConn" {
		return nc
	}
	inner := v.Elem().FieldByName("Conn")
	if !inner.IsValid() || !inner.CanInterface() {
		return nc
	}
	if c, ok := inner.Interface().(net.Conn); ok && c != nil {
		return c
	}
	return nc
}
