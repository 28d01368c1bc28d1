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
	v := schema.Versions{Go: runtime.Version(), Caddy: caddyproc.Version(caddyBin), Commit: commit(repo), Modules: map[string]string{}}
	if st, err := os.Stat(caddyBin); err == nil {
		v.CaddyBuilt = st.ModTime().UTC().Format(time.RFC3339)
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

// commit returns the short commit of repo, with "-dirty" when tracked files
// differ from it.
func commit(repo string) string {
	out, err := exec.Command("git", "-C", repo, "describe", "--always", "--dirty", "--abbrev=12", "--exclude=*").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
