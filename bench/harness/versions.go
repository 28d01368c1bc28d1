package harness

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/caddyproc"
	"github.com/caddy-jsonrpc/caddy-jsonrpc/bench/schema"
)

// peerModules are the modules whose versions the document records.
var peerModules = []string{
	"github.com/ethereum/go-ethereum",
	"github.com/creachadair/jrpc2",
	"github.com/goccy/go-json",
	"github.com/coder/websocket",
	"github.com/gobwas/ws",
	"gonum.org/v1/plot",
	"google.golang.org/grpc",
}

// describeVersions returns Go's, Caddy's, the commit's and the peers'.
func describeVersions(repo, caddyBin string) schema.Versions {
	v := schema.Versions{Go: runtime.Version(), Caddy: caddyproc.Version(caddyBin), Modules: map[string]string{}}
	if st, err := os.Stat(caddyBin); err == nil {
		v.CaddyBuilt = st.ModTime().UTC().Format(time.RFC3339)
	}
	// the short commit of repo, "-dirty" when tracked files differ from it
	out, err := exec.Command("git", "-C", repo, "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*").Output()
	v.Commit = strings.TrimSpace(string(out))
	if err != nil {
		v.Commit = "unknown"
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if slices.Contains(peerModules, dep.Path) {
				v.Modules[dep.Path] = dep.Version
			}
		}
	}
	return v
}
