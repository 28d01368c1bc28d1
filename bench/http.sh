#!/usr/bin/env bash
# Measures jsonrpc against Caddy's static respond on one HTTPS listener on
# loopback, over HTTP/1.1 and HTTP/2: one `add` call per POST, the same
# answer from `respond`, and a batch of 100 `add` calls per POST.
#
# Usage: bench/http.sh [path/to/caddy]     (default: ../bin/caddy, from ./xcaddy.sh build)
# Environment: CONNS (64), DURATION per run (2s), WARMUP per run (500ms), ROUNDS (5),
#              OUT (a file that receives the raw JSON lines).
# Prints the raw JSON lines on stderr as they come, then a Markdown table of
# medians and ratios on stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
caddy=${1:-$here/../bin/caddy}
conns=${CONNS:-64}
duration=${DURATION:-2s}
warmup=${WARMUP:-500ms}
rounds=${ROUNDS:-5}

if [[ ! -x $caddy ]]; then
	echo "http.sh: no Caddy binary at $caddy (build it with ./xcaddy.sh build at the repository root)" >&2
	exit 2
fi
caddy=$(cd "$(dirname "$caddy")" && pwd)/$(basename "$caddy")

work=$(mktemp -d)
caddy_pid=
cleanup() {
	if [[ -n $caddy_pid ]] && kill -0 "$caddy_pid" 2>/dev/null; then
		kill "$caddy_pid" 2>/dev/null || true
		wait "$caddy_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

(cd "$here" && go build -o "$work/" ./cmd/load ./cmd/freeport ./cmd/httpreport)

read -r https_port http_port < <("$work/freeport" 2)
export BENCH_HTTPS_PORT=$https_port BENCH_HTTP_PORT=$http_port
XDG_DATA_HOME=$work/data XDG_CONFIG_HOME=$work/config \
	"$caddy" run --config "$here/Caddyfile.bench" --adapter caddyfile >"$work/caddy.log" 2>&1 &
caddy_pid=$!

base=https://127.0.0.1:$https_port
single='{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}'
answer='{"jsonrpc":"2.0","result":3,"id":1}'
batch=$(for i in $(seq 1 100); do printf '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":%d}\n' "$i"; done | paste -sd, -)
batch_answer=$(for i in $(seq 1 100); do printf '{"jsonrpc":"2.0","result":3,"id":%d}\n' "$i"; done | paste -sd, -)
printf '[%s]' "$batch" >"$work/batch.json"
printf '[%s]' "$batch_answer" >"$work/batch_answer.json"

ready=
for _ in $(seq 1 100); do
	if ! kill -0 "$caddy_pid" 2>/dev/null; then
		break
	fi
	if "$work/load" -url "$base/rpc" -k -n 1 -timeout 1s -body "$single" -expect "$answer" >/dev/null 2>&1 &&
		"$work/load" -url "$base/static" -k -n 1 -timeout 1s -body "$single" -expect "$answer" \
			-expect-type application/json >/dev/null 2>&1; then
		ready=1
		break
	fi
	sleep 0.2
done
if [[ -z $ready ]]; then
	echo "http.sh: Caddy did not answer correctly on $base; its log:" >&2
	cat "$work/caddy.log" >&2
	exit 1
fi

results=${OUT:-$work/results.jsonl}
: >"$results"
run() { # label path body-flag body expect-flag expect calls h2-flag
	local label=$1 path=$2 bodyflag=$3 body=$4 expflag=$5 expect=$6 calls=$7
	shift 7
	"$work/load" -label "$label" -url "$base$path" -k -c "$conns" -d "$duration" -warmup "$warmup" \
		"$bodyflag" "$body" "$expflag" "$expect" -calls "$calls" "$@" | tee -a "$results" >&2
}
for round in $(seq 1 "$rounds"); do
	for proto in h1 h2; do
		flags=()
		[[ $proto == h2 ]] && flags=(-h2)
		echo "http.sh: round $round/$rounds, $proto" >&2
		run "$proto:static:single" /static -body "$single" -expect "$answer" 1 "${flags[@]}"
		run "$proto:rpc:single" /rpc -body "$single" -expect "$answer" 1 "${flags[@]}"
		run "$proto:rpc:batch100" /rpc -body-file "$work/batch.json" -expect-file "$work/batch_answer.json" 100 "${flags[@]}"
	done
done

echo "Caddy $("$caddy" version | cut -d' ' -f1), $(nproc) CPUs, $conns connections, ${duration} per run after ${warmup} warm-up, median of $rounds runs:"
echo
"$work/httpreport" <"$results"
