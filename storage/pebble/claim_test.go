package pebble_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestClaim: a store's users know whether they are its only one.
func TestClaim(t *testing.T) {
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var c storage.Claimer = s
	aloneA, releaseA := c.Claim()
	if !aloneA() {
		t.Fatal("the first claim is not alone")
	}
	aloneB, releaseB := c.Claim()
	if aloneA() || aloneB() {
		t.Fatal("two claims, one alone")
	}
	releaseB()
	releaseB() // idempotent
	if !aloneA() {
		t.Fatal("alone again after the other's release")
	}
	releaseA()
}
