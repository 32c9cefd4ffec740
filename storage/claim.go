package storage

// Claimer is implemented by a store that no other process can open while
// this one has it open (the embedded store: Pebble locks its directory),
// so that the store's users in this process can know whether they are its
// only user. A gateway claims its store when it starts: alone then
// reports whether no other claim is held (another gateway of the process
// on the same store), and release ends the claim.
//
// A gateway that is the store's only user may skip what it does for other
// gateways (sqlgw/engine's CREATE INDEX waits one catalog refresh interval
// so that every gateway's writers see a new index; alone, it only waits
// for its own commits in flight). A wrapper that hands the same store to
// several users must therefore not forward Claim; a user that cannot
// claim (no Claimer) must assume it is not alone.
type Claimer interface {
	Claim() (alone func() bool, release func())
}
