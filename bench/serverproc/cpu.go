package serverproc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of the times in /proc/<pid>/stat (USER_HZ, 100 on
// Linux).
const clockTick = 10 * time.Millisecond

// CPU returns the process's CPU time so far, user and system.
func (p *Proc) CPU() (time.Duration, error) { return CPU(p.PID()) }

// CPU returns the CPU time, user and system, that process pid has used so
// far, to the clock tick (10 ms), read from /proc/<pid>/stat.
func CPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseCPU(string(b))
}

// parseCPU reads utime and stime, the 14th and 15th fields, from the text
// of /proc/<pid>/stat; the 2nd, the command's name in parentheses, may
// hold spaces.
func parseCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/<pid>/stat %.60q: no command name", stat)
	}
	f := strings.Fields(stat[i+1:]) // from the 3rd field, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/<pid>/stat %.60q: too few fields", stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/<pid>/stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
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
