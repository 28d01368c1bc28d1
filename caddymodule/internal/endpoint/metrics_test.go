package endpoint

import (
	"testing"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/rpccore"
)

func TestOutcomeIndexIsBounded(t *testing.T) {
	for code, want := range map[int]string{
		0: "ok", rpccore.CodeParseError: "parse_error", rpccore.CodeInvalidRequest: "invalid_request",
		rpccore.CodeMethodNotFound: "method_not_found", rpccore.CodeInvalidParams: "invalid_params",
		rpccore.CodeInternalError: "internal_error", rpccore.CodeResponseTooLarge: "response_too_large",
		rpccore.CodeServerError: "error", 42: "error", -1: "error",
	} {
		if got := outcomes[outcomeIndex(code)]; got != want {
			t.Errorf("code %d: %s, want %s", code, got, want)
		}
	}
}
