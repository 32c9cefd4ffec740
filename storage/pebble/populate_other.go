//go:build !linux

package pebble

// populate does nothing off Linux: the pages fault in as they are written.
func populate([]byte) {}
