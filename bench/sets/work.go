package sets

import (
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/inprocess"
)

// Work is the work the sets of group report on the progress bar under p:
// the estimated milliseconds of their steps, so that long steps weigh more
// than short ones.
func Work(group string, p Profile) int {
	rounds, _, _ := broadcastShares(p)
	switch group {
	case "inprocess":
		return len(inprocess.All()) * len(inCases()) * (inStepWork(p.InProcessWarmup) + p.Runs*inStepWork(p.InProcessTime))
	case "http":
		return len(httpCells(p)) * len(httpTargets()) * (ms(p.HTTPWarmup) + 2*p.HTTPRounds*httpSliceWork(p))
	case "websocket":
		w := len(pipeCells(p))*2*pipeStepWork(p) + p.Runs*2*memoryStepWork(p)
		for _, n := range p.BroadcastSizes {
			w += rounds * (4*broadcastStepWork(p, n) + 2*writesStepWork(p, n))
		}
		return w
	case "stream":
		return (len(p.StreamCells)*5+3+3+3)*p.Runs*streamRunWork(p) + p.Runs*2*memoryStepWork(p)
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

// The estimated milliseconds of one step: an in-process measurement of d;
// an HTTP slice; a WebSocket pipelined cell; a memory run (starting a server,
// opening the connections, letting them settle); a session of a pipelined
// stream cell; a WebSocket server's broadcast session of n subscribers
// (dialling, subscribing, the session's messages to every subscriber) and
// one of the harness's own writes; a run of one client on one cell; and
// one series of one cell of the nodes set (dialling and subscribing, the
// probes, the timed messages, the stream and its last messages), after
// starting its servers.
func inStepWork(d time.Duration) int { return ms(d) + 20 }
func httpSliceWork(p Profile) int    { return ms(p.HTTPSlice) + 20 }
func pipeStepWork(p Profile) int     { return ms(p.WSWarmup) + p.Runs*ms(p.WSWindow) + 50 }
func memoryStepWork(p Profile) int   { return 400 + p.IdleConns/3 + ms(p.IdleSettle)*3/2 }
func streamRunWork(p Profile) int    { return ms(p.WSWarmup) + ms(p.WSWindow) + 60 }

func broadcastStepWork(p Profile, n int) int {
	_, warmup, runs := broadcastShares(p)
	return 50 + n/5 + (warmup+runs)*n/80
}

func writesStepWork(p Profile, n int) int {
	_, warmup, runs := broadcastShares(p)
	return 10 + n/10 + (warmup+runs)*n/400
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
	return 300 + p.NodesSubscribers/2 + (p.BroadcastWarmup+p.BroadcastRuns)*10 + ms(p.NodesWarmup) +
		p.Runs*ms(p.NodesWindow) + 100
}
