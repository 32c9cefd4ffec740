//go:build race

package pebble

// raceEnabled is true under -race. The race detector, and Pebble's
// invariant checks that the race build turns on, allocate on paths that
// allocate nothing otherwise, so allocation counts are checked only
// without it (as the standard library does with race.Enabled).
const raceEnabled = true
