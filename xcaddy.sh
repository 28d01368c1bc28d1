#!/usr/bin/env bash
# xcaddy.sh builds Caddy with this module (bin/caddy) using pinned versions of
# xcaddy and Caddy, and serves Caddyfile.example.
#
#   ./xcaddy.sh build   build the WebAssembly host, then bin/caddy
#   ./xcaddy.sh run     build both, then serve Caddyfile.example
#                       (https://localhost:8443/rpc and /wasm/, admin on localhost:2019)
#   ./xcaddy.sh wasm    build the WebAssembly host only (wasm/web/main.wasm)
set -euo pipefail

XCADDY_VERSION=v0.4.5
CADDY_VERSION=v2.11.9
MODULE=github.com/caddy-jsonrpc/caddy-jsonrpc
# The module path is not published, so xcaddy would ask the module proxy for
# it and fail; pinning the zero pseudo-version and replacing it with this
# checkout makes xcaddy use the local files.
ZERO_VERSION=v0.0.0-00010101000000-000000000000

cd "$(dirname "$0")"

# xcaddy builds in a fresh module of its own, where go get and go mod tidy ask
# the module proxy for version lists and go.mod files (for retractions and
# deprecations) even when the module cache holds every module they need: 20 of
# the 26 seconds of a build with warm caches. The module cache, read first as a
# proxy, answers them; what it lacks, the proxy configured before answers.
GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)"
export GOPROXY

# build_wasm builds the WebAssembly host (wasm/) into wasm/web/, beside the
# page that loads it, with the wasm_exec.js of the Go that built it.
build_wasm() {
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o wasm/web/main.wasm ./wasm
	install -m 0644 "$(go env GOROOT)/lib/wasm/wasm_exec.js" wasm/web/wasm_exec.js
}

build() {
	build_wasm
	mkdir -p bin
	go run "github.com/caddyserver/xcaddy/cmd/xcaddy@${XCADDY_VERSION}" build "${CADDY_VERSION}" \
		--with "${MODULE}@${ZERO_VERSION}=." \
		--output bin/caddy
}

case "${1:-}" in
build)
	build
	;;
run)
	build
	exec bin/caddy run --config Caddyfile.example --adapter caddyfile
	;;
wasm)
	build_wasm
	;;
*)
	echo "usage: $0 build|run|wasm" >&2
	exit 2
	;;
esac
