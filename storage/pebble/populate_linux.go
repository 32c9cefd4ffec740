package pebble

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is Linux's MADV_POPULATE_WRITE (5.14).
const madvPopulateWrite = 23

// populate maps b's whole pages in one system call, before they are
// written: a row cache chunk filled by a bulk load's write-through
// otherwise took a page fault per 4 KiB on its first touch. Best effort:
// an older kernel's EINVAL leaves the pages to fault in as before.
func populate(b []byte) {
	if len(b) == 0 {
		return
	}
	const page = 4096
	start := (uintptr(unsafe.Pointer(&b[0])) + page - 1) &^ (page - 1)
	end := (uintptr(unsafe.Pointer(&b[0])) + uintptr(len(b))) &^ (page - 1)
	if end <= start {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateWrite)
}
