// Package childserve runs the servers under test as child processes
// (Proc: their output kept, their resident memory and CPU time read from
// /proc with github.com/prometheus/procfs, stopped with SIGTERM, then
// SIGKILL if they linger), and holds the servers the harness measures
// outside Caddy, each the harness binary run again as `run serve <impl>`
// (Start), so that its memory and CPU time can be read and its file
// descriptors do not count against the load generator's. Such a child
// listens on loopback, prints where on its first line (a ws:// or nats://
// URL, or "<network> <address>" for a stream server), and serves until it
// is sent SIGTERM.
//
// Over WebSocket: "ours" (rpccore with the demo service over package
// wsconn, the code behind the Caddy handler's upgrade), "geth"
// (go-ethereum's WebSocket handler) and the bare fan-outs, "fanout" and
// "fanout_parallel". Over streams: "ipc" (go-ethereum's IPC server),
// "grpc" (package grpcpeer's service) and "bare", the floor of the stream
// sets. "nats" is the nodes set's nats-server.
package childserve

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// Proc is a running server process.
type Proc struct {
	cmd   *exec.Cmd
	proc  procfs.Proc
	stop  context.CancelFunc
	lines chan string
	done  chan struct{}
	err   error // how it exited, once done is closed
	log   tail  // the end of its output
}

// StartProc runs name with args, with env added to this process's
// environment; the first lines it prints on stdout are handed to Line. It
// is stopped when Stop is called or ctx ends: sent SIGTERM, and killed if
// it still runs 10 seconds later.
func StartProc(ctx context.Context, env []string, name string, args ...string) (*Proc, error) {
	ctx, stop := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	dieWithParent(cmd)
	p := &Proc{cmd: cmd, stop: stop, lines: make(chan string, 16), done: make(chan struct{})}
	cmd.Stderr = &p.log
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		stop()
		return nil, err
	}
	p.proc, _ = procfs.NewProc(cmd.Process.Pid) // without /proc, RSS and CPU fail
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(&p.log, sc.Text())
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		p.err = cmd.Wait()
		close(p.lines)
		close(p.done)
	}()
	return p, nil
}

// tail keeps the end of a process's output, for error messages.
type tail struct {
	mu  sync.Mutex
	out []byte
}

const maxLog = 64 << 10 // the most kept

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.out = append(t.out, b...); len(t.out) > maxLog {
		t.out = t.out[len(t.out)-maxLog/2:]
	}
	return len(b), nil
}

// Line waits up to timeout for the next line the process prints on stdout.
func (p *Proc) Line(timeout time.Duration) (string, error) {
	select {
	case l, ok := <-p.lines:
		if !ok {
			return "", fmt.Errorf("%s exited (%v) before printing its address; its output:\n%s", p.cmd.Path, p.err, p.Log())
		}
		return l, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("%s printed nothing for %v; its output:\n%s", p.cmd.Path, timeout, p.Log())
	}
}

// Log returns the end of what the process printed.
func (p *Proc) Log() string {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	return string(p.log.out)
}

// Exited is true once the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits up to 10s for the process to end, then
// kills it.
func (p *Proc) Stop() {
	p.stop()
	<-p.done
}

// RSS returns the process's resident memory in bytes, VmRSS of
// /proc/<pid>/status.
func (p *Proc) RSS() (int64, error) {
	st, err := p.proc.NewStatus()
	return int64(st.VmRSS), err
}

// CPU returns the process's CPU time so far, user and system, to the clock
// tick (10 ms), from /proc/<pid>/stat.
func (p *Proc) CPU() (time.Duration, error) {
	st, err := p.proc.Stat()
	return time.Duration(st.CPUTime() * float64(time.Second)), err
}

// SelfCPU returns the CPU time, user and system, this process has used so
// far.
func SelfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// RaiseOpenFiles lifts this process's soft limit on open files to the hard
// limit, for the thousands of connections of the memory and broadcast
// sets, and returns the limit in force. The children inherit it.
func RaiseOpenFiles() uint64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	lim.Cur = lim.Max
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	return lim.Cur
}

// Subcommand is the first argument that makes the harness binary a child
// server (Main).
const Subcommand = "serve"

// Server is a running child server.
type Server struct {
	*Proc
	Network, Addr string // where a stream server listens ("tcp" or "unix"); Addr is the others' URL
}

// Start runs impl in a child process of this executable and returns it
// once it prints where it serves, within 30 seconds.
func Start(ctx context.Context, impl string) (*Server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, err := StartProc(ctx, nil, exe, Subcommand, impl)
	if err != nil {
		return nil, err
	}
	line, err := p.Line(30 * time.Second)
	s := &Server{Proc: p, Addr: line}
	if network, addr, ok := strings.Cut(line, " "); ok && (network == "tcp" || network == "unix") {
		s.Network, s.Addr = network, addr
	} else if err == nil && !strings.HasPrefix(line, "ws://127.0.0.1:") && !strings.HasPrefix(line, "nats://127.0.0.1:") {
		err = fmt.Errorf("%s %s printed %q, not its address", Subcommand, impl, line)
	}
	if err != nil {
		p.Stop()
		return nil, err
	}
	return s, nil
}

// Main is the child's side of Start: it serves the server args name until
// SIGTERM or an interrupt, and returns the exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := Serve(ctx, strings.Join(args, " "), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, Subcommand+":", err)
		return 1
	}
	return 0
}
