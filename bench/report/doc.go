// Package report turns benchmarks.json into what people read: tables of
// every set (medians, ranges and ratios), the HTML page that shows them with
// the charts, and the README's performance block, which is generated from
// the JSON and never typed by hand.
package report
