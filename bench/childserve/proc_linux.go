package childserve

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the child when the harness ends, even
// when it is killed itself and runs no Stop: no server outlives a run. (The
// signal follows the thread that started the child, and the harness never
// ends its threads: it locks none.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
