package sets

// wspipe.go measures pipelined calls over WebSocket.

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// pipeCell is one connection count and depth.
type pipeCell struct{ conns, depth int }

// x names the cell.
func (c pipeCell) x() string {
	return fmt.Sprintf("%s × %d in flight", plural(c.conns, "conn", "conns"), c.depth)
}

// String is the cell in short: 4×256.
func (c pipeCell) String() string { return fmt.Sprintf("%d×%d", c.conns, c.depth) }

// pipeCells are every connection count by every depth.
func pipeCells(p Profile) []pipeCell {
	var cells []pipeCell
	for _, n := range p.WSConns {
		for _, d := range p.WSDepths {
			cells = append(cells, pipeCell{n, d})
		}
	}
	return cells
}

// PipelinedWork is the work Pipelined reports, in estimated milliseconds.
func PipelinedWork(p Profile) int { return len(pipeCells(p)) * 2 * pipeStepWork(p) }

// pipeStepWork is the estimated milliseconds of one pipelined cell.
func pipeStepWork(p Profile) int { return ms(p.WSWarmup) + p.Runs*ms(p.WSWindow) + 50 }

// Pipelined measures the five requests cycled over WebSocket with a fixed
// number of calls in flight on each connection, ours then the peer on
// each cell.
func (ws *WebSocket) Pipelined(ctx context.Context, e *Env) schema.Set {
	s := schema.Set{
		ID: "ws_pipelined", Group: "websocket", Status: schema.Measured,
		Title:   "WebSocket: pipelined calls per second, the five requests cycled",
		Harness: ws.harness,
		Note: "each connection keeps its number of calls in flight: a call is written as soon as an answer comes " +
			"back, and the calls written together go out in one network write; every answer is checked",
		Metric: schema.Metric{Name: "rpc_per_s", Unit: "calls per second", Better: schema.Higher, Log: true},
		XLabel: "connections × calls in flight on each",
	}
	for _, impl := range ws.impls {
		s.Series = append(s.Series, series(impl.name, impl.label, impl.role, "rpc_per_s", "calls per second"))
	}
	runs := collector{}
	for _, c := range pipeCells(e.Profile) {
		s.Cells = append(s.Cells, c.x())
		for _, impl := range ws.impls {
			e.Bar.Start(fmt.Sprintf("WebSocket pipelined: %s, %s", c.x(), impl.name))
			rates, err := pipelined(ctx, c, impl.rename, windows(e.Profile), ws.shared[impl.name].dial, "wsload")
			e.Bar.Done(pipeStepWork(e.Profile))
			if err != nil {
				return failed(s, fmt.Errorf("%s, %s: %w", c.x(), impl.name, err))
			}
			for _, r := range rates {
				runs.add(impl.name, "rpc_per_s", c.x(), r)
			}
		}
	}
	runs.fill(&s)
	s.Compare("ours", "geth")
	return s
}
