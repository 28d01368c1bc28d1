// Package serverproc runs a server under test as a child process: started
// with its output kept (the first lines of stdout handed to the caller, who
// learns the server's address from them), its resident memory and CPU time
// read from /proc (github.com/prometheus/procfs), and stopped with SIGTERM,
// then SIGKILL if it lingers.
package serverproc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
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

	mu  sync.Mutex
	log []byte // the end of its output
}

// maxLog bounds the output kept for error messages.
const maxLog = 64 << 10

// Start runs name with args, with env added to this process's environment.
// It is stopped when Stop is called or ctx ends: sent SIGTERM, and killed
// if it still runs 10 seconds later.
func Start(ctx context.Context, env []string, name string, args ...string) (*Proc, error) {
	ctx, stop := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	dieWithParent(cmd)
	stdout, err := cmd.StdoutPipe()
	var stderr io.Reader
	if err == nil {
		stderr, err = cmd.StderrPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		stop()
		return nil, err
	}
	p := &Proc{cmd: cmd, stop: stop, lines: make(chan string, 16), done: make(chan struct{})}
	p.proc, _ = procfs.NewProc(cmd.Process.Pid) // without /proc, RSS and CPU fail
	var wg sync.WaitGroup
	wg.Go(func() { p.scan(stdout, p.lines) })
	wg.Go(func() { p.scan(stderr, nil) })
	go func() {
		wg.Wait()
		p.err = cmd.Wait()
		close(p.lines)
		close(p.done)
	}()
	return p, nil
}

// scan keeps r's lines in the log, handing them to lines while it has room.
func (p *Proc) scan(r io.Reader, lines chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.log = append(append(p.log, sc.Text()...), '\n')
		if len(p.log) > maxLog {
			p.log = p.log[len(p.log)-maxLog/2:]
		}
		p.mu.Unlock()
		if lines != nil {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}
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
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.log)
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
