package pebble_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestClaim: a store's users know whether they are its only one, when
// its opener hands it to one user (OneUser); otherwise none is ever alone
// (TestReview13cCreateIndexSecondGatewayWrapped: another user may hold it
// through a wrapper that cannot claim).
func TestClaim(t *testing.T) {
	other, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if alone, release := other.Claim(); alone() {
		t.Fatal("a store opened without OneUser reports its only claim alone")
	} else {
		release()
	}
	s, err := pebble.Open("", &pebble.Options{InMemory: true, OneUser: true})
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
