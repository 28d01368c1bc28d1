// Package chart draws a set of benchmarks.json as a grouped bar chart (PNG)
// with gonum/plot: one group per cell, one bar per series of the set's main
// metric, ours in a strong colour and the peers in quieter ones, a whisker
// from the lowest to the highest run, and the median written above each bar,
// on a logarithmic axis when the figures span orders of magnitude.
package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// Size and resolution of the charts, as wide as their bars need within bounds;
// maxBarWidth keeps the bars of a chart with few cells from being blocks.
const (
	minWidth    = 6 * vg.Inch
	maxWidth    = 11 * vg.Inch
	height      = 5 * vg.Inch
	dpi         = 110
	maxBarWidth = 1.1 * vg.Inch
)

// widthFor returns the width of the chart of s: room for its bars and labels.
func widthFor(s *schema.Set) vg.Length {
	need := max(vg.Length(len(s.Cells)*len(s.Main()))*0.3*vg.Inch, vg.Length(len(s.Cells))*0.9*vg.Inch)
	return min(max(3.5*vg.Inch+need, minWidth), maxWidth)
}

// labelChars is about how many characters of a cell's label fit on one
// line under its group of bars, or 0 when the labels must be slanted.
func labelChars(s *schema.Set) int {
	cell := (widthFor(s) - vg.Inch) / vg.Length(len(s.Cells))
	if cell < vg.Inch {
		return 0
	}
	return max(15, int(cell/vg.Inch*110/6*0.6))
}

// PNG draws s, with the goals that are thresholds on its main metric as
// dashed lines, and returns the PNG bytes. The title and the legend sit
// above the plot, so that they never cover a bar.
func PNG(s *schema.Set, goals []schema.Goal) ([]byte, error) {
	goals = slices.DeleteFunc(slices.Clone(goals), func(g schema.Goal) bool {
		return g.Set != s.ID || g.Metric != s.Metric.Name || g.Target <= 0 ||
			g.Cell != "" && !slices.Contains(s.Cells, g.Cell)
	})
	p, err := build(s, goals)
	if err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(widthFor(s), height), vgimg.UseDPI(dpi),
		vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	area := draw.Crop(dc, 0, 0, 0, -header(dc, p, s))
	da := p.DataCanvas(area)
	addBars(p, s, (da.Max.X-da.Min.X)/vg.Length(len(s.Cells)))
	addGoals(p, s, goals)
	p.Draw(area)
	var buf bytes.Buffer
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(&buf)
	return buf.Bytes(), err
}

// header draws the title, the unit line and, below them, the legend in rows
// as wide as the canvas, and returns the height they take.
func header(dc draw.Canvas, p *plot.Plot, s *schema.Set) vg.Length {
	pad, y := vg.Points(6), dc.Max.Y-vg.Points(6)
	centred := func(txt string, size vg.Length, c color.Color, gap vg.Length) {
		sty := p.Title.TextStyle
		sty.Font.Size, sty.Color, sty.XAlign, sty.YAlign = size, c, text.XCenter, text.YTop
		dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: y}, txt)
		y -= sty.Height(txt) + gap
	}
	unit := s.Metric.Unit + ", " + s.Metric.Better + " is better"
	if s.Metric.Log {
		unit += " (log scale)"
	}
	centred(s.Title, vg.Points(12), color.Black, vg.Points(3))
	centred(unit, vg.Points(9), color.Gray{Y: 80}, pad)

	label := p.Legend.TextStyle
	label.Font.Size = vg.Points(9)
	label.XAlign, label.YAlign = text.XLeft, text.YCenter
	row := label.Height("Mg") + vg.Points(4)
	box := vg.Points(14)
	left := dc.Min.X + vg.Points(40)
	x := left
	y -= row / 2
	for i, r := range s.Main() {
		w := box + vg.Points(4) + label.Width(r.Label) + vg.Points(16)
		if x > left && x+w > dc.Max.X-pad {
			x, y = left, y-row
		}
		thumb := vg.Rectangle{Min: vg.Point{X: x, Y: y - box/3}, Max: vg.Point{X: x + box, Y: y + box/3}}
		dc.SetColor(colour(r.Role, i))
		dc.Fill(thumb.Path())
		dc.FillText(label, vg.Point{X: x + box + vg.Points(4), Y: y}, r.Label)
		x += w
	}
	return dc.Max.Y - (y - row/2 - pad)
}

// build returns the plot's axes and grid, room left above the highest bar.
func build(s *schema.Set, goals []schema.Goal) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = s.XLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.Add(&plotter.Grid{Horizontal: draw.LineStyle{Color: color.Gray{Y: 225}, Width: vg.Points(0.5)}}) // at the labelled ticks
	lo, hi := math.Inf(1), 0.0
	for _, g := range goals {
		lo, hi = min(lo, g.Target), max(hi, g.Target)
	}
	for _, r := range s.Main() {
		for _, pt := range r.Points {
			if pt.Low > 0 {
				lo = min(lo, pt.Low)
			}
			hi = max(hi, pt.High)
		}
	}
	if hi <= 0 || len(s.Cells) == 0 {
		return nil, fmt.Errorf("chart: set %s has no %s figures", s.ID, s.Metric.Name)
	}
	p.Y.Tick.Marker, p.Y.Min, p.Y.Max = linearTicks, 0, hi*1.12
	if s.Metric.Log {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks
		p.Y.Min = math.Pow10(int(math.Floor(math.Log10(min(lo, hi) / 3)))) // the shortest bar still shows
		p.Y.Max = hi * math.Pow(hi/p.Y.Min, 0.08)
	}
	names := slices.Clone(s.Cells)
	if n := labelChars(s); n > 0 {
		for i, x := range names {
			names[i] = wrap(x, n)
		}
	} else {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = text.XRight, text.YTop
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(s.Cells))-0.5
	return p, nil
}

// addBars adds each main series' bars (from the bottom of the Y axis), their
// whiskers and their medians; unit is the width of a cell in points.
func addBars(p *plot.Plot, s *schema.Set, unit vg.Length) {
	main := s.Main()
	slot := min(0.8/float64(len(main)), float64(maxBarWidth/unit)) // a bar's share of its cell
	label := p.Y.Tick.Label
	label.Font.Size = vg.Points(7)
	label.XAlign, label.YAlign = text.XCenter, text.YBottom
	if vg.Length(slot)*unit < label.Width("00.0k")+vg.Points(2) {
		label.Rotation = math.Pi / 2
		label.XAlign, label.YAlign = text.XLeft, text.YCenter
	}
	floor := &plotter.BarChart{Values: slices.Repeat(plotter.Values{p.Y.Min}, len(s.Cells))}
	for si, r := range main {
		bars := &plotter.BarChart{Values: make(plotter.Values, len(s.Cells)), Width: vg.Length(slot*0.92) * unit,
			Color: colour(r.Role, si)}
		bars.StackOn(floor)
		bars.XMin = slot * (float64(si) - float64(len(main)-1)/2)
		whiskers := &plotter.YErrorBars{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}}
		medians := &plotter.Labels{Offset: vg.Point{Y: vg.Points(2)}}
		for i, x := range s.Cells {
			pt := r.Point(x)
			if pt == nil || pt.Median <= 0 {
				continue
			}
			at := plotter.XY{X: bars.XMin + float64(i), Y: pt.Median}
			bars.Values[i] = pt.Median - p.Y.Min
			whiskers.XYs = append(whiskers.XYs, at)
			whiskers.YErrors = append(whiskers.YErrors,
				struct{ Low, High float64 }{pt.Median - max(pt.Low, p.Y.Min), pt.High - pt.Median})
			medians.XYs = append(medians.XYs, plotter.XY{X: at.X, Y: pt.High})
			medians.Labels = append(medians.Labels, Short(pt.Median))
			medians.TextStyle = append(medians.TextStyle, label)
		}
		p.Add(bars, whiskers, medians)
	}
}

// addGoals draws each goal as a labelled dashed line across its cell or all.
func addGoals(p *plot.Plot, s *schema.Set, goals []schema.Goal) {
	line := draw.LineStyle{Color: rgb(0xb42318), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	label := p.Y.Tick.Label
	label.Font.Size, label.Color = vg.Points(7), line.Color
	label.XAlign, label.YAlign = text.XRight, text.YTop
	sign := map[bool]string{true: "≤", false: "≥"}[s.Metric.Better == schema.Lower]
	for _, g := range goals {
		x0, x1 := p.X.Min, p.X.Max
		if i := slices.Index(s.Cells, g.Cell); i >= 0 {
			x0, x1 = float64(i)-0.5, float64(i)+0.5
		}
		at := plotter.XYs{{X: x0, Y: g.Target}, {X: x1, Y: g.Target}} // the label at the right end
		p.Add(&plotter.Line{XYs: at, LineStyle: line},
			&onWhite{plotter.Labels{XYs: at[1:], Labels: []string{"goal " + sign + Short(g.Target)},
				TextStyle: []text.Style{label}, Offset: vg.Point{X: -vg.Points(2), Y: -vg.Points(2)}}})
	}
}

// onWhite writes its labels on white, readable over a bar.
type onWhite struct{ plotter.Labels }

func (l *onWhite) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	c.SetColor(color.White)
	for i, txt := range l.Labels.Labels {
		at := vg.Point{X: trX(l.XYs[i].X), Y: trY(l.XYs[i].Y)}.Add(l.Offset)
		c.Fill(l.TextStyle[i].Rectangle(txt).Add(at).Path())
	}
	l.Labels.Plot(c, p)
}

// logTicks marks every power of ten with a label, and 2 and 5 times it.
var logTicks = plot.TickerFunc(func(lo, hi float64) (ticks []plot.Tick) {
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow10(int(e)); v >= lo && v <= hi {
				ticks = append(ticks, plot.Tick{Value: v, Label: Short(v)})
			}
		}
	}
	return ticks
})

// linearTicks labels every one of gonum's default ticks, minor ones too, in
// the short number format: the major ones alone can be two.
var linearTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = Short(ticks[i].Value)
	}
	return ticks
})

// Short formats a figure in at most about four characters of digits, three
// significant ones and none after the point from 100 on, without trailing
// zeros: 0.21, 3.5, 146, 14.4k, 1.51M.
func Short(v float64) string {
	a, suffix := math.Abs(v), ""
	switch {
	case a == 0:
		return "0"
	case a >= 1e6:
		v, a, suffix = v/1e6, a/1e6, "M"
	case a >= 1e4:
		v, a, suffix = v/1e3, a/1e3, "k"
	}
	s := strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(a)))), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + suffix
}

// wrap breaks a label longer than n characters after ", " and before " × ",
// and a word still longer than n before its last capital within n.
func wrap(text string, n int) string {
	if len(text) <= n {
		return text
	}
	lines := strings.Split(strings.NewReplacer(", ", ",\n", " × ", " ×\n").Replace(text), "\n")
	for i, l := range lines {
		cut := strings.LastIndexFunc(l[:min(n+1, len(l))], unicode.IsUpper)
		if len(l) > n && cut > 0 && !strings.Contains(l, " ") {
			lines[i] = l[:cut] + "\n" + l[cut:]
		}
	}
	return strings.Join(lines, "\n")
}

// fills are the series' colours by role and index: ours strong; two shades
// for ceilings and baselines, so that neighbours differ; the peers in turn.
var fills = map[string][]color.Color{
	schema.Ours:     {rgb(0xd95f02)},
	schema.Ceiling:  {rgb(0x555555), rgb(0x999999)},
	schema.Baseline: {rgb(0xf4b37a), rgb(0xf8d2ae)},
	schema.Peer:     {rgb(0x9a9a9a), rgb(0x1b6ca8), rgb(0x5a9b5a), rgb(0x8e6cb0)},
}

func colour(role string, i int) color.Color {
	f := fills[role]
	return f[i%len(f)]
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}
