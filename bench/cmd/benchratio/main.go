// Command benchratio reads the output of the in-process benchmarks
// (BenchmarkWorkload/impl=<impl>/case=<case>, any number of runs) and prints
// Markdown tables per JSON-RPC call: the median ns, bytes and allocations of
// each implementation on each case, and for ns the ratio of each peer to
// the first implementation (ours). A batch's figures are divided by its
// number of calls, found from its ns/rpc metric.
//
//	benchratio results/inprocess.txt
package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// key names one benchmark.
type key struct{ impl, cas string }

// table holds every sample of every benchmark, by metric unit.
type table struct {
	impls, cases []string
	samples      map[key]map[string][]float64
}

func main() {
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchratio:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	t, err := read(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
	t.print(os.Stdout)
}

// read parses benchmark lines, skipping everything else.
func read(r io.Reader) (*table, error) {
	t := &table{samples: map[key]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkWorkload/") {
			continue
		}
		k, ok := parseName(f[0])
		if !ok {
			continue
		}
		if !slices.Contains(t.impls, k.impl) {
			t.impls = append(t.impls, k.impl)
		}
		if !slices.Contains(t.cases, k.cas) {
			t.cases = append(t.cases, k.cas)
		}
		if t.samples[k] == nil {
			t.samples[k] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			t.samples[k][f[i+1]] = append(t.samples[k][f[i+1]], v)
		}
	}
	return t, sc.Err()
}

// parseName reads impl and case from a benchmark name.
func parseName(name string) (key, bool) {
	var k key
	for part := range strings.SplitSeq(name, "/") {
		if v, ok := strings.CutPrefix(part, "impl="); ok {
			k.impl = v
		}
		if v, ok := strings.CutPrefix(part, "case="); ok {
			if i := strings.LastIndexByte(v, '-'); i > 0 {
				if _, err := strconv.Atoi(v[i+1:]); err == nil {
					v = v[:i]
				}
			}
			k.cas = v
		}
	}
	return k, k.impl != "" && k.cas != ""
}

// perCall returns the median of unit for k, divided by the calls per op.
func (t *table) perCall(k key, unit string) float64 {
	s := t.samples[k]
	calls := 1.0
	if rpc := median(s["ns/rpc"]); rpc > 0 {
		calls = math.Round(median(s["ns/op"]) / rpc)
	}
	return median(s[unit]) / calls
}

// print writes the three tables.
func (t *table) print(w io.Writer) {
	runs := 0
	if len(t.impls) > 0 && len(t.cases) > 0 {
		runs = len(t.samples[key{t.impls[0], t.cases[0]}]["ns/op"])
	}
	fmt.Fprintf(w, "ns per call, median of %d runs (peer ÷ %s in parentheses):\n\n", runs, t.impls[0])
	t.printUnit(w, "ns/op", true)
	fmt.Fprintf(w, "\nallocations per call:\n\n")
	t.printUnit(w, "allocs/op", false)
	fmt.Fprintf(w, "\nbytes allocated per call:\n\n")
	t.printUnit(w, "B/op", false)
}

// printUnit writes one table of unit, with ratios when asked.
func (t *table) printUnit(w io.Writer, unit string, ratios bool) {
	fmt.Fprintf(w, "| case | %s |\n", strings.Join(t.impls, " | "))
	fmt.Fprintf(w, "| --- |%s\n", strings.Repeat(" ---: |", len(t.impls)))
	logSums := make([]float64, len(t.impls))
	for _, c := range t.cases {
		base := t.perCall(key{t.impls[0], c}, unit)
		cells := make([]string, len(t.impls))
		for i, impl := range t.impls {
			v := t.perCall(key{impl, c}, unit)
			cells[i] = format(v)
			if ratios && i > 0 && base > 0 {
				cells[i] += fmt.Sprintf(" (%.1fx)", v/base)
				logSums[i] += math.Log(v / base)
			}
		}
		fmt.Fprintf(w, "| %s | %s |\n", c, strings.Join(cells, " | "))
	}
	if ratios {
		cells := []string{"1x"}
		for i := 1; i < len(t.impls); i++ {
			cells = append(cells, fmt.Sprintf("%.1fx", math.Exp(logSums[i]/float64(len(t.cases)))))
		}
		fmt.Fprintf(w, "| geomean ratio | %s |\n", strings.Join(cells, " | "))
	}
}

// format prints v with the precision it deserves.
func format(v float64) string {
	switch {
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// median returns the median of s, 0 when empty.
func median(s []float64) float64 {
	if len(s) == 0 {
		return 0
	}
	s = slices.Sorted(slices.Values(s))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
