//go:build !linux

package azurite

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
