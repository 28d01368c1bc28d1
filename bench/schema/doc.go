// Package schema is the shape of bench/results/benchmarks.json: a document
// of sets, each a table of cells (the x values) by series (the
// implementations), every cell a Point with the median and the range of its
// timed runs; the comparisons of ours with each peer; the goals the issues
// set; and the machine, versions, harness command and policy of the run.
//
// The document is written by cmd/run and read by the report tools (the
// charts, the HTML page, the README table). Check validates one: every
// measured set complete, every cell a finite number.
package schema
