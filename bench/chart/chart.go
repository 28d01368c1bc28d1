// Package chart draws a set of benchmarks.json as a grouped bar chart (PNG):
// one group per cell, one bar per series of the set's main metric, ours in a
// strong colour and the peers in quieter ones, a whisker from the lowest to
// the highest run, and the median written above each bar, on a logarithmic
// axis when the figures span orders of magnitude.
package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
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

// Size and resolution of the charts: as wide as their bars need, within
// bounds.
const (
	minWidth = 6 * vg.Inch
	maxWidth = 11 * vg.Inch
	height   = 5 * vg.Inch
	dpi      = 110
)

// widthFor returns the width of the chart of s: room for its bars and
// its cells' labels.
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
	p, err := build(s, goals)
	if err != nil {
		return nil, err
	}
	c := vgimg.NewWith(vgimg.UseWH(widthFor(s), height), vgimg.UseDPI(dpi),
		vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	used := header(dc, p, s)
	p.Draw(draw.Crop(dc, 0, 0, 0, -used))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// header draws the title and, below it, the legend in rows as wide as the
// canvas, and returns the height they take.
func header(dc draw.Canvas, p *plot.Plot, s *schema.Set) vg.Length {
	pad := vg.Points(6)
	title := p.Title.TextStyle
	title.Font.Size = vg.Points(12)
	title.XAlign, title.YAlign = text.XCenter, text.YTop
	y := dc.Max.Y - pad
	dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: y}, s.Title)
	y -= title.Height(s.Title) + vg.Points(3)
	sub := title
	sub.Font.Size = vg.Points(9)
	sub.Color = color.Gray{Y: 80}
	unit := s.Metric.Unit + ", " + s.Metric.Better + " is better"
	if s.Metric.Log {
		unit += " (log scale)"
	}
	dc.FillText(sub, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: y}, unit)
	y -= sub.Height("Mg") + pad

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
		fill := colour(r.Role, i)
		dc.FillPolygon(fill, []vg.Point{{X: x, Y: y - box/3}, {X: x, Y: y + box/3}, {X: x + box, Y: y + box/3}, {X: x + box, Y: y - box/3}})
		dc.FillText(label, vg.Point{X: x + box + vg.Points(4), Y: y}, r.Label)
		x += w
	}
	return dc.Max.Y - (y - row/2 - pad)
}

func build(s *schema.Set, goals []schema.Goal) (*plot.Plot, error) {
	main := s.Main()
	if len(main) == 0 || len(s.Cells) == 0 {
		return nil, fmt.Errorf("chart: set %s has no %s figures", s.ID, s.Metric.Name)
	}
	p := plot.New()
	p.X.Label.Text = s.XLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.Add(&plotter.Grid{Horizontal: draw.LineStyle{Color: color.Gray{Y: 225}, Width: vg.Points(0.5)}}) // at the labelled ticks

	bars := &bars{set: s, series: main, label: p.Y.Tick.Label}
	bars.label.Font.Size = vg.Points(7)
	for _, g := range goals {
		if g.Set == s.ID && g.Metric == s.Metric.Name {
			bars.goals = append(bars.goals, g)
		}
	}
	lo, hi := bars.span()
	// Leave room above the highest bar for its label.
	if s.Metric.Log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Min = math.Pow10(int(math.Floor(math.Log10(lo / 3)))) // the shortest bar still shows
		p.Y.Max = hi * math.Pow(hi/p.Y.Min, 0.08)
		bars.base = p.Y.Min
	} else {
		p.Y.Tick.Marker = linearTicks{}
		p.Y.Min, p.Y.Max = 0, hi*1.12
	}
	p.Add(bars)
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

// wrap breaks a label longer than n characters after ", " and before " × ",
// and a line of one word still longer than n before its last capital
// within n characters.
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

// Fills: ours strong; two shades each for ceilings and baselines, so that
// neighbouring ones differ; and the peers in turn.
var (
	oursFill = color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff}
	shades   = map[string][2]color.Color{
		schema.Ceiling:  {color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}, color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}},
		schema.Baseline: {color.RGBA{R: 0xf4, G: 0xb3, B: 0x7a, A: 0xff}, color.RGBA{R: 0xf8, G: 0xd2, B: 0xae, A: 0xff}},
	}
	peerFills = []color.Color{
		color.RGBA{R: 0x1b, G: 0x6c, B: 0xa8, A: 0xff},
		color.RGBA{R: 0x5a, G: 0x9b, B: 0x5a, A: 0xff},
		color.RGBA{R: 0x8e, G: 0x6c, B: 0xb0, A: 0xff},
		color.RGBA{R: 0x9a, G: 0x9a, B: 0x9a, A: 0xff},
	}
)

// colour returns the fill of the i-th series with the given role.
func colour(role string, i int) color.Color {
	if role == schema.Ours {
		return oursFill
	}
	if s, ok := shades[role]; ok {
		return s[i%2]
	}
	return peerFills[(i-1+len(peerFills))%len(peerFills)]
}
