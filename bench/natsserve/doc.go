// Package natsserve runs the NATS server of the nodes set: nats-server
// v2.15.2 (github.com/nats-io/nats-server/v2, pinned in bench/go.mod) built
// into the harness binary through its server package and run in a child
// process of its own, `run serve-nats <store dir>`, as packages wsserve and
// streamserve run theirs. It listens on a free loopback port with
// JetStream on, its store in the directory given (which the harness makes
// and removes), prints its nats:// URL on stdout once it takes connections,
// and serves until it is sent SIGTERM.
//
// In a process of its own its CPU and garbage collection are not the load
// generator's, and it is stopped, or killed, like every other child; built
// into the harness binary it needs no second build or binary to manage.
package natsserve
