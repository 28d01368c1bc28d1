// Package harness is bench/run: it runs every set of package sets under a
// profile (full or quick), describes the machine and the versions measured,
// checks the goals, and writes bench/results: benchmarks.json, a chart per
// set, the HTML page, and the README's performance block.
package harness
