package azurite

import "syscall"

// sysProcAttr makes the kernel send SIGTERM to Azurite if the test binary
// dies without stopping it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
