package sets

import (
	"fmt"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// Profile sets how long and how often every cell is measured.
type Profile struct {
	Name string // "full" or "quick"
	Runs int    // timed runs of each cell (broadcast has its own)
	// Each in-process cell's warm-up and timed run.
	InProcessWarmup, InProcessTime time.Duration
	// The HTTP sets' warm-up of each target, a slice (a run), a cell's rounds (two slices each), connections.
	HTTPWarmup, HTTPSlice time.Duration
	HTTPRounds            int
	HTTPConns             []int
	// Each pipelined cell's warm-up and timed windows (the stream sets' too), and the WebSocket set's cells.
	WSWarmup, WSWindow time.Duration
	WSConns, WSDepths  []int
	// The subscriber counts; the rounds, each a session of every series publishing the warm-up messages,
	// then its share of the timed ones (the nodes set times them all, one at a time).
	BroadcastSizes                                  []int
	BroadcastWarmup, BroadcastRuns, BroadcastRounds int
	// The cells of the stream pipelined set and of the client set.
	StreamCells, ClientCells []pipeCell
	// The memory sets' idle connections, and how long they sit before a read.
	IdleConns  int
	IdleSettle time.Duration
	// The nodes set's subscribers, its stream's warm-up and each window.
	NodesSubscribers         int
	NodesWarmup, NodesWindow time.Duration
}

// Full is the profile of the committed results: every cell warmed up, then
// timed 5 times (the issue asks for at least 3), in about 10 minutes.
func Full() Profile {
	return Profile{
		Name: "full", Runs: 5,
		InProcessWarmup: 100 * time.Millisecond, InProcessTime: 250 * time.Millisecond,
		HTTPWarmup: 250 * time.Millisecond, HTTPSlice: 250 * time.Millisecond, HTTPRounds: 10, HTTPConns: []int{1, 16, 64},
		WSWarmup: 300 * time.Millisecond, WSWindow: time.Second, WSConns: []int{1, 4}, WSDepths: []int{1, 16, 256},
		BroadcastSizes: []int{100, 1000, 5000}, BroadcastWarmup: 3, BroadcastRuns: 15, BroadcastRounds: 3,
		StreamCells: []pipeCell{{1, 1}, {1, 256}, {4, 256}, {16, 256}},
		ClientCells: []pipeCell{{1, 1}, {1, 256}, {4, 1}, {4, 256}}, IdleConns: 10000, IdleSettle: time.Second,
		NodesSubscribers: 1000, NodesWarmup: 500 * time.Millisecond, NodesWindow: time.Second,
	}
}

// Quick runs every cell of Full once, briefly: it proves the harness works and says nothing of speed.
func Quick() Profile {
	p := Full()
	p.Name, p.Runs = "quick", 1
	p.InProcessWarmup, p.InProcessTime = 2*time.Millisecond, 10*time.Millisecond
	p.HTTPWarmup, p.HTTPSlice, p.HTTPRounds = 30*time.Millisecond, 50*time.Millisecond, 1
	p.WSWarmup, p.WSWindow = 30*time.Millisecond, 100*time.Millisecond
	p.BroadcastWarmup, p.BroadcastRuns, p.BroadcastRounds = 1, 1, 1
	p.IdleConns, p.IdleSettle = 1000, 200*time.Millisecond
	p.NodesWarmup, p.NodesWindow = 100*time.Millisecond, 200*time.Millisecond
	return p
}

// Settings lists the profile for the document's harness section.
func (p Profile) Settings() map[string]string {
	n, w := numericWindows(p), clientRunWindows(p)
	rounds, warmup, runs := broadcastShares(p)
	return map[string]string{
		"profile":             p.Name,
		"timed_runs_per_cell": fmt.Sprint(p.Runs),
		"inprocess":           fmt.Sprintf("%v warm-up, then %d runs of %v", p.InProcessWarmup, p.Runs, p.InProcessTime),
		"http":                fmt.Sprintf("per cell, on connections of its own: %v of warm-up of each target, then %s, each a slice of %v of every target in the order respond, ours, ours_batch100, ours_batch100, ours, respond (each slice a run); connections %v", p.HTTPWarmup, Count(p.HTTPRounds, "round", "rounds"), p.HTTPSlice, p.HTTPConns),
		"websocket_pipelined": fmt.Sprintf("%v warm-up, then %d windows of %v on the same connections; connections %v, in flight %v", p.WSWarmup, p.Runs, p.WSWindow, p.WSConns, p.WSDepths),
		"websocket_broadcast": fmt.Sprintf("subscribers %v; %d rounds, each a session of every series in turn on fresh connections, the order turned by one each round: %d messages of warm-up, then %d timed", p.BroadcastSizes, rounds, warmup, runs),
		"websocket_memory":    fmt.Sprintf("%d idle connections, memory read after %v; %d runs, each on a freshly started server", p.IdleConns, p.IdleSettle, p.Runs),
		"stream":              fmt.Sprintf("pipelined: %d runs per cell, each a %v warm-up and a window of %v on fresh connections, the targets in turn run by run; cells %v; streaming: %v warm-up, then %d windows of %v; memory as websocket_memory", p.Runs, p.WSWarmup, p.WSWindow, p.StreamCells, p.WSWarmup, p.Runs, p.WSWindow),
		"nodes": fmt.Sprintf("%d subscribers; %d messages of warm-up, then %d timed one at a time; then a stream: %v warm-up, then %d windows of %v",
			p.NodesSubscribers, p.BroadcastWarmup, p.BroadcastRuns, p.NodesWarmup, p.Runs, p.NodesWindow),
		"client": fmt.Sprintf("%d runs per cell, each on fresh connections, the clients in turn run by run: a %v warm-up and a window of %v, then the numeric calls only: %v, then a window of %v; cells %v", p.Runs, w.Warmup, w.Length, n.Warmup, n.Length, p.ClientCells),
	}
}

// Work is the work the sets of group report on the progress bar under p:
// the estimated milliseconds of their steps, so long steps weigh more.
func Work(group string, p Profile) int {
	rounds, _, _ := broadcastShares(p)
	switch group {
	case "inprocess":
		return len(inprocess.All()) * len(inCases()) * (inStepWork(p.InProcessWarmup) + p.Runs*inStepWork(p.InProcessTime))
	case "http":
		return len(httpCells(p)) * len(httpTargets()) * (ms(p.HTTPWarmup) + 2*p.HTTPRounds*httpSliceWork(p))
	case "websocket":
		w := len(pipeCells(p))*2*pipeWork(p, 1) + p.Runs*2*memoryStepWork(p)
		for _, n := range p.BroadcastSizes {
			w += rounds * (4*broadcastStepWork(p, n) + 2*(broadcastStepWork(p, n)/5))
		}
		return w
	case "stream":
		return (len(p.StreamCells)*5+3+3)*p.Runs*pipeWork(p, p.Runs) + 3*pipeWork(p, 1) + p.Runs*2*memoryStepWork(p)
	case "client":
		w := 0
		for _, r := range clientSeries {
			w += clientRunWork(p, r.numeric)
		}
		return len(p.ClientCells) * p.Runs * w
	case "nodes":
		return nodesStartWork + 2*2*nodesStepWork(p)
	}
	return 0
}

// The estimated milliseconds of a step: an in-process run of d, an HTTP
// slice, a memory run, a session of a pipelined cell (one of n), a broadcast
// session of n subscribers (a fifth of it for the writes alone), a client's
// run, a series of a nodes cell.
func inStepWork(d time.Duration) int { return ms(d) + 20 }
func httpSliceWork(p Profile) int    { return ms(p.HTTPSlice) + 20 }
func memoryStepWork(p Profile) int   { return 400 + p.IdleConns/3 + ms(p.IdleSettle)*3/2 }
func pipeWork(p Profile, n int) int  { return ms(p.WSWarmup) + p.Runs/n*ms(p.WSWindow) + 50 }

func broadcastStepWork(p Profile, n int) int {
	_, warmup, runs := broadcastShares(p)
	return 50 + n/5 + (warmup+runs)*n/80
}

func clientRunWork(p Profile, numeric bool) int {
	w, n := clientRunWindows(p), numericWindows(p)
	work := ms(w.Warmup) + ms(w.Length) + 100
	if numeric {
		work += ms(n.Warmup) + ms(n.Length)
	}
	return work
}

const nodesStartWork = 2500

func nodesStepWork(p Profile) int {
	return 400 + p.NodesSubscribers/2 + (p.BroadcastWarmup+p.BroadcastRuns)*10 + ms(p.NodesWarmup) +
		p.Runs*ms(p.NodesWindow)
}
