//go:build !race

package pebble

// raceEnabled: see race_on_test.go.
const raceEnabled = false
