#!/usr/bin/env bash
# Runs the in-process comparison and prints a benchstat table of every
# implementation against ours (the batch's ns/rpc is its time per call).
#
# Usage: bench/inprocess.sh
# Environment: COUNT (runs, default 6), BENCHTIME (per benchmark, default 1s),
#              BENCH (benchmark pattern, default .), OUT (raw results file,
#              default bench/results/inprocess.txt).
# The test binary is built once, then run COUNT times with -count 1, so that
# every run passes over all implementations and slow phases of a shared
# machine fall on all of them alike.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
count=${COUNT:-6}
benchtime=${BENCHTIME:-1s}
pattern=${BENCH:-.}
out=${OUT:-$here/results/inprocess.txt} # ignored by bench/.gitignore
benchstat_version=v0.0.0-20260908200009-22c9c6c9d4da

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$here" && go test -c -o "$work/inprocess.test" ./inprocess)
"$work/inprocess.test" -test.run '^Test' >&2
mkdir -p "$(dirname "$out")"
: >"$out"
for i in $(seq 1 "$count"); do
	echo "inprocess.sh: run $i/$count" >&2
	"$work/inprocess.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" -test.count 1 |
		{ if [[ $i == 1 ]]; then cat; else grep '^Benchmark'; fi } >>"$out"
done
cd "$here"
go run "golang.org/x/perf/cmd/benchstat@$benchstat_version" -col /impl "$out"
