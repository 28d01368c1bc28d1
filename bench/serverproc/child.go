package serverproc

// child.go runs the harness's own servers in child processes: this
// executable run again as `<subcommand> <arg>`.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Child is a server running in a child process of the harness.
type Child struct {
	*Proc
	// Addr is the first line it printed: where it serves.
	Addr string
}

// StartChild runs this executable again as `<subcommand> <arg>`, which
// must hand arg to ChildMain, and returns it once it prints its address, a
// line that starts with one of prefixes, within 30 seconds. The child is
// stopped when that fails.
func StartChild(ctx context.Context, subcommand, arg string, prefixes ...string) (*Child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, err := Start(ctx, "", nil, exe, subcommand, arg)
	if err != nil {
		return nil, err
	}
	line, err := p.Line(30 * time.Second)
	if err == nil && !hasAnyPrefix(line, prefixes) {
		err = fmt.Errorf("%s %s printed %q, not its address", subcommand, arg, line)
	}
	if err != nil {
		p.Stop()
		return nil, err
	}
	return &Child{Proc: p, Addr: line}, nil
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// ChildMain is the child's side of StartChild, named by the subcommand:
// it lifts the open-files limit and runs serve, which writes the address
// and a newline to w and serves args[0] until ctx ends, until SIGTERM or
// an interrupt. It returns the exit code.
func ChildMain(subcommand string, args []string, serve func(ctx context.Context, arg string, w io.Writer) error) int {
	if len(args) != 1 || args[0] == "" {
		fmt.Fprintf(os.Stderr, "usage: %s <server>\n", subcommand)
		return 2
	}
	RaiseOpenFiles()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := serve(ctx, args[0], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, subcommand+":", err)
		return 1
	}
	return 0
}

// RaiseOpenFiles lifts this process's soft limit on open files to the hard
// limit, for the thousands of connections of the memory and broadcast
// sets, and returns the limit now in force.
func RaiseOpenFiles() uint64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	return lim.Cur
}
