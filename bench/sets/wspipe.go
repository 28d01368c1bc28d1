package sets

import (
	"context"
	"fmt"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/wsload"
)

// pipeCell is one connection count and depth.
type pipeCell struct{ conns, depth int }

func (c pipeCell) x() string {
	return fmt.Sprintf("%s × %d in flight", Count(c.conns, "conn", "conns"), c.depth)
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

// cellNames are the x values of cells.
func cellNames(cells []pipeCell) []string {
	var xs []string
	for _, c := range cells {
		xs = append(xs, c.x())
	}
	return xs
}

// pipelined says how the pipelined sets keep calls in flight.
const pipelined = "each connection keeps its number of calls in flight: a call is written as soon as an answer " +
	"comes back, and the calls written together go out in one network write; every answer is checked"

// pipeSet is a set of calls per second by connections × calls in flight.
func pipeSet(id, group, title, harness, note string) schema.Set {
	return schema.Set{ID: id, Group: group, Status: schema.Measured, Title: title, Harness: harness, Note: note,
		Metric: schema.Metric{Name: "rpc_per_s", Unit: "calls per second", Better: schema.Higher, Log: true},
		XLabel: "connections × calls in flight on each"}
}

// Pipelined measures the five requests cycled over WebSocket with a fixed
// number of calls in flight on each connection, ours then the peer on
// each cell.
func (ws *WebSocket) Pipelined(ctx context.Context, e *Env) schema.Set {
	s := pipeSet("ws_pipelined", "websocket", "WebSocket: pipelined calls per second, the five requests cycled", ws.harness,
		pipelined)
	var targets []pipeTarget
	for _, impl := range ws.impls {
		reqs, expect := wsload.Workload(impl.rename)
		targets = append(targets, pipeTo(impl.name, impl.label, impl.role, ws.shared[impl.name].dial, reqs, expect))
	}
	return measurePipes(ctx, e, s, pipeCells(e.Profile), targets, 1, windows(e.Profile), pipeStepWork(e.Profile))
}
