package sqltext

import "testing"

func TestTxCharacteristics(t *testing.T) {
	for _, c := range []struct {
		in, out  string
		conflict bool
	}{
		{"START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT", "START TRANSACTION READ ONLY", false},
		{"start transaction with consistent snapshot , read write", "start transaction READ WRITE", false},
		{"START TRANSACTION WITH CONSISTENT SNAPSHOT,WITH CONSISTENT SNAPSHOT;", "START TRANSACTION WITH CONSISTENT SNAPSHOT;", false},
		{"START /* a */ TRANSACTION READ ONLY, /* b */ READ ONLY ; SELECT 1, 2", "START /* a */ TRANSACTION READ ONLY ; SELECT 1, 2", false},
		{"START TRANSACTION READ ONLY, READ WRITE", "START TRANSACTION ", true},
		{"START TRANSACTION READ ONLY", "START TRANSACTION READ ONLY", false}, // one: the parser's
		{"START TRANSACTION READ ONLY, ", "START TRANSACTION READ ONLY, ", false},
		{"START TRANSACTION READ ONLY, READ", "START TRANSACTION READ ONLY, READ", false},
		{"START TRANSACTION READ ONLY, /*!80000 READ ONLY */", "START TRANSACTION READ ONLY, /*!80000 READ ONLY */", false},
		{"START SLAVE; SELECT 1, 2", "START SLAVE; SELECT 1, 2", false},
		{"SELECT 'START TRANSACTION READ ONLY, READ WRITE'", "SELECT 'START TRANSACTION READ ONLY, READ WRITE'", false},
	} {
		got := Run(c.in, []Step{TxCharacteristics})
		if got.String() != c.out || got.TxConflict != c.conflict {
			t.Errorf("%q: %q conflict %v, want %q conflict %v", c.in, got.String(), got.TxConflict, c.out, c.conflict)
		}
	}
}

func TestPrepareTxCharacteristics(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT", "START TRANSACTION READ ONLY /* WITH CONSISTENT SNAPSHOT */"},
		{"start transaction with consistent snapshot , read write", "start transaction READ WRITE /* WITH CONSISTENT SNAPSHOT */"},
		{"START TRANSACTION READ ONLY, READ ONLY", "START TRANSACTION READ ONLY"},
		{"START TRANSACTION READ ONLY, READ WRITE", "START TRANSACTION READ ONLY, READ WRITE"}, // vitess's syntax error
	} {
		got := Run(c.in, Prepare)
		if got.String() != c.out || got.TxConflict {
			t.Errorf("%q: %q conflict %v, want %q", c.in, got.String(), got.TxConflict, c.out)
		}
	}
}
