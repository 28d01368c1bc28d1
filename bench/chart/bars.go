package chart

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// bars draws one group of bars per cell.
type bars struct {
	set    *schema.Set
	series []*schema.Series
	label  text.Style
	base   float64 // where bars start: 0, or the bottom of a log axis
	goals  []schema.Goal
}

// maxBarWidth keeps the bars of a chart with few cells from turning into
// blocks.
const maxBarWidth = 1.1 * vg.Inch

// span returns the smallest low and the largest high of the figures.
func (b *bars) span() (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, r := range b.series {
		for _, p := range r.Points {
			if p.Low > 0 {
				lo = math.Min(lo, p.Low)
			}
			hi = math.Max(hi, p.High)
		}
	}
	for _, g := range b.goals {
		if g.Target > 0 {
			lo, hi = math.Min(lo, g.Target), math.Max(hi, g.Target)
		}
	}
	if math.IsInf(lo, 1) {
		lo = 1
	}
	if hi <= 0 {
		hi = 1
	}
	return lo, hi
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	groupWidth := trX(1) - trX(0)
	n := len(b.series)
	barWidth := min(groupWidth*0.8/vg.Length(n), maxBarWidth)
	label := b.label
	label.XAlign, label.YAlign = text.XCenter, text.YBottom
	rotate := barWidth < label.Width("00.0k")+vg.Points(2)
	if rotate {
		label.Rotation = math.Pi / 2
		label.XAlign, label.YAlign = text.XLeft, text.YCenter
	}
	whisker := draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
	for gi, x := range b.set.Cells {
		left := trX(float64(gi)) - barWidth*vg.Length(n)/2
		for si, r := range b.series {
			p := r.Point(x)
			if p == nil || p.Median <= 0 {
				continue
			}
			x0 := left + vg.Length(si)*barWidth
			x1 := x0 + barWidth*0.92
			y0, y1 := trY(b.base), trY(p.Median)
			c.FillPolygon(colour(r.Role, si), c.ClipPolygonY([]vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}))
			mid := (x0 + x1) / 2
			top := y1
			if p.High > p.Low && p.Low > 0 {
				c.StrokeLine2(whisker, mid, trY(p.Low), mid, trY(p.High))
				top = max(top, trY(p.High))
			}
			c.FillText(label, vg.Point{X: mid, Y: top + vg.Points(2)}, Short(p.Median))
		}
	}
	b.drawGoals(c, trX, trY, groupWidth)
}

// drawGoals draws each goal as a dashed line at its target, across its
// cell or the whole chart, labelled at its right end.
func (b *bars) drawGoals(c draw.Canvas, trX, trY func(float64) vg.Length, groupWidth vg.Length) {
	line := draw.LineStyle{Color: color.RGBA{R: 0xb4, G: 0x23, B: 0x18, A: 0xff}, Width: vg.Points(1.2),
		Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	label := b.label
	label.Color = line.Color
	label.XAlign, label.YAlign = text.XRight, text.YTop
	for _, g := range b.goals {
		x0, x1 := c.Min.X, c.Max.X
		if g.Cell != "" {
			i := slices.Index(b.set.Cells, g.Cell)
			if i < 0 {
				continue
			}
			x0, x1 = trX(float64(i))-groupWidth/2, trX(float64(i))+groupWidth/2
		}
		y := trY(g.Target)
		c.StrokeLine2(line, x0, y, x1, y)
		sign := "≥"
		if b.set.Metric.Better == schema.Lower {
			sign = "≤"
		}
		txt := "goal " + sign + Short(g.Target)
		at := vg.Point{X: x1 - vg.Points(2), Y: y - vg.Points(2)}
		w, h := label.Width(txt), label.Height(txt)
		c.FillPolygon(color.White, []vg.Point{{X: at.X - w - 1, Y: at.Y - h - 1}, {X: at.X - w - 1, Y: at.Y + 1},
			{X: at.X + 1, Y: at.Y + 1}, {X: at.X + 1, Y: at.Y - h - 1}})
		c.FillText(label, at, txt)
	}
}
