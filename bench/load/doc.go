// Package load is a closed-loop HTTP load generator for loopback servers:
// a fixed number of keep-alive connections (HTTP/1.1 or HTTP/2, over TLS or
// not), each its own http.Transport sending one POST at a time for a fixed
// duration or request count, checking every answer and recording its
// latency. The connections can outlive a run (Open), so that runs of
// several targets on one server take turns on the same warm connections.
//
// It only ever connects to loopback addresses: Run refuses a URL whose host
// is not a loopback IP or "localhost", and every dial is checked again
// after name resolution.
package load
