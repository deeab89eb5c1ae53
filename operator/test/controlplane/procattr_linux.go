package controlplane

import "syscall"

// procAttr makes the kernel kill a child process when the test binary that
// started it dies, so that a crashed test leaves no controller-manager
// behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
