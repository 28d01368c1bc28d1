package sets

import (
	"fmt"
	"time"
)

// Profile sets how long and how often every cell is measured.
type Profile struct {
	// Name is "full" or "quick".
	Name string
	// Runs is the number of timed runs of each cell (broadcast has its own).
	Runs int

	// InProcessWarmup and InProcessTime are each in-process cell's warm-up
	// and the length of each timed run.
	InProcessWarmup, InProcessTime time.Duration
	// HTTPWarmup and HTTPTime are each HTTP run's warm-up (on its own
	// connections) and timed length; HTTPConns the client connection counts.
	HTTPWarmup, HTTPTime time.Duration
	HTTPConns            []int
	// WSWarmup and WSWindow are each pipelined cell's warm-up and the
	// length of each timed window; WSConns and WSDepths its cells.
	WSWarmup, WSWindow time.Duration
	WSConns, WSDepths  []int
	// BroadcastSizes are the subscriber counts; BroadcastWarmup and
	// BroadcastRuns the messages published before and while timing. The
	// broadcast set has BroadcastRounds rounds, each a session of every
	// series in turn on fresh connections: each session publishes
	// BroadcastWarmup messages, then its share of BroadcastRuns.
	BroadcastSizes                 []int
	BroadcastWarmup, BroadcastRuns int
	BroadcastRounds                int
	// StreamCells are the cells of the stream pipelined set; its windows
	// are WSWarmup and WSWindow, as every stream set's.
	StreamCells []pipeCell
	// ClientCells are the cells of the client set; each run of it is
	// WSWarmup and half a WSWindow (clientRunWindows), then shorter
	// windows for the numeric calls (numericWindows).
	ClientCells []pipeCell
	// IdleConns is the number of idle connections of the memory sets, and
	// IdleSettle how long they sit before the server's memory is read.
	IdleConns  int
	IdleSettle time.Duration
	// NodesSubscribers is the nodes set's subscriber count, split over the
	// nodes; NodesWarmup its stream's warm-up and NodesWindow the length
	// of each of its Runs windows. Its messages timed one at a time are
	// BroadcastWarmup and BroadcastRuns.
	NodesSubscribers         int
	NodesWarmup, NodesWindow time.Duration
}

// Full is the profile of the committed results: every cell warmed up, then
// timed 5 times (the issue asks for at least 3), in about 10 minutes on the
// project's 2-core machine.
func Full() Profile {
	return Profile{
		Name: "full", Runs: 5,
		InProcessWarmup: 100 * time.Millisecond, InProcessTime: 250 * time.Millisecond,
		HTTPWarmup: 250 * time.Millisecond, HTTPTime: 1300 * time.Millisecond, HTTPConns: []int{1, 16, 64},
		WSWarmup: 300 * time.Millisecond, WSWindow: time.Second, WSConns: []int{1, 4}, WSDepths: []int{1, 16, 256},
		BroadcastSizes: []int{100, 1000, 5000}, BroadcastWarmup: 3, BroadcastRuns: 15, BroadcastRounds: 3,
		StreamCells: streamCellsOf(), ClientCells: clientCellsOf(), IdleConns: 10000, IdleSettle: time.Second,
		NodesSubscribers: 1000, NodesWarmup: 500 * time.Millisecond, NodesWindow: time.Second,
	}
}

// Quick runs every cell once, briefly: it proves the harness works end to
// end and says nothing of speed.
func Quick() Profile {
	return Profile{
		Name: "quick", Runs: 1,
		InProcessWarmup: 2 * time.Millisecond, InProcessTime: 10 * time.Millisecond,
		HTTPWarmup: 30 * time.Millisecond, HTTPTime: 100 * time.Millisecond, HTTPConns: []int{1, 16, 64},
		WSWarmup: 30 * time.Millisecond, WSWindow: 100 * time.Millisecond, WSConns: []int{1, 4}, WSDepths: []int{1, 16, 256},
		BroadcastSizes: []int{100, 1000, 5000}, BroadcastWarmup: 1, BroadcastRuns: 1, BroadcastRounds: 1,
		StreamCells: streamCellsOf(), ClientCells: clientCellsOf(), IdleConns: 1000, IdleSettle: 200 * time.Millisecond,
		NodesSubscribers: 1000, NodesWarmup: 100 * time.Millisecond, NodesWindow: 200 * time.Millisecond,
	}
}

// streamCellsOf are the stream cells of both profiles: 1×1, 1×256, 4×256
// and 16×256.
func streamCellsOf() []pipeCell { return []pipeCell{{1, 1}, {1, 256}, {4, 256}, {16, 256}} }

// Settings lists the profile for the document's harness section.
func (p Profile) Settings() map[string]string {
	n, w := numericWindows(p), clientRunWindows(p)
	rounds, warmup, runs := broadcastShares(p)
	return map[string]string{
		"profile":             p.Name,
		"timed_runs_per_cell": fmt.Sprint(p.Runs),
		"inprocess":           fmt.Sprintf("%v warm-up, then %d runs of %v", p.InProcessWarmup, p.Runs, p.InProcessTime),
		"http":                fmt.Sprintf("%d runs of %v, each after %v of warm-up on its own connections; connections %v", p.Runs, p.HTTPTime, p.HTTPWarmup, p.HTTPConns),
		"websocket_pipelined": fmt.Sprintf("%v warm-up, then %d windows of %v on the same connections; connections %v, in flight %v", p.WSWarmup, p.Runs, p.WSWindow, p.WSConns, p.WSDepths),
		"websocket_broadcast": fmt.Sprintf("subscribers %v; %d rounds, each a session of every series in turn on fresh connections, the order turned by one each round: %d messages of warm-up, then %d timed", p.BroadcastSizes, rounds, warmup, runs),
		"websocket_memory":    fmt.Sprintf("%d idle connections, memory read after %v; %d runs, each on a freshly started server", p.IdleConns, p.IdleSettle, p.Runs),
		"stream":              fmt.Sprintf("pipelined: %d runs per cell, each a %v warm-up and a window of %v on fresh connections, the targets in turn run by run; cells %v; streaming: %v warm-up, then %d windows of %v; memory as websocket_memory", p.Runs, p.WSWarmup, p.WSWindow, p.StreamCells, p.WSWarmup, p.Runs, p.WSWindow),
		"nodes": fmt.Sprintf("%d subscribers; %d messages of warm-up, then %d timed one at a time; then a stream: %v warm-up, then %d windows of %v",
			p.NodesSubscribers, p.BroadcastWarmup, p.BroadcastRuns, p.NodesWarmup, p.Runs, p.NodesWindow),
		"client": fmt.Sprintf("%d runs per cell, each on fresh connections, the clients in turn run by run: a %v warm-up and a window of %v, then the numeric calls only: %v, then a window of %v; cells %v", p.Runs, w.Warmup, w.Length, n.Warmup, n.Length, p.ClientCells),
	}
}
