package report

import (
	"fmt"
	"strings"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/chart"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// GoalsTable is the goals with what was measured and whether each is met;
// with detail, the cells each figure comes from.
func GoalsTable(d *schema.Doc, detail bool) Table {
	t := Table{Caption: "goals set by the issues", Head: []string{"goal", "issue", "measured", "met", "CPU steal"}}
	if detail {
		t.Head = append(t.Head, "from")
	}
	for _, g := range d.Goals {
		issue, verdict, steal := "–", "not met", "–"
		if g.Issue != 0 {
			issue = fmt.Sprintf("#%d", g.Issue)
		}
		if g.Met {
			verdict = "met"
		}
		if s := d.Find(g.Set); s != nil {
			steal = Steal(s.CPUSteal)
		}
		row := []string{g.Text, issue, measured(g), verdict, steal}
		if detail {
			row = append(row, g.Detail)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// measured formats a goal's figure with its unit.
func measured(g schema.Goal) string {
	if strings.HasPrefix(g.Detail, "not measured") {
		return "not measured"
	}
	if g.Unit == "x" {
		return Ratio(g.Measured)
	}
	return chart.Short(g.Measured) + " " + g.Unit
}

// Steal formats a share of CPU time stolen as a percentage, "–" when
// unknown.
func Steal(share *float64) string {
	if share == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *share*100)
}
