package sqlgw_test

import (
	"encoding/binary"
	"strconv"
	"testing"
)

// TestDirectPointSelectStatusFlags: a prepared point select served
// directly from the plan cache (sqlgw/engine/direct.go) ends with the
// status flags go-mysql-server's path sends: SERVER_STATUS_AUTOCOMMIT as
// the session's autocommit, SERVER_STATUS_IN_TRANS inside a transaction.
func TestDirectPointSelectStatusFlags(t *testing.T) {
	const (
		autocommitFlag = 0x0002
		inTransFlag    = 0x0001
	)
	srv := startConfigured(t, nil)
	r := dialRaw(t, srv.Addr().String(), "root", "")
	for _, q := range []string{"CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(10))", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"} {
		if _, msg := r.query(q); msg != "" {
			t.Fatalf("%s: %s", q, msg)
		}
	}
	r.command(append([]byte{0x16}, "SELECT c FROM t WHERE id = ?"...)...)
	ok := r.read()
	if ok[0] != 0 {
		t.Fatalf("prepare: %q", ok)
	}
	id := binary.LittleEndian.Uint32(ok[1:5])
	params, cols := binary.LittleEndian.Uint16(ok[7:9]), binary.LittleEndian.Uint16(ok[5:7])
	for i := 0; i < int(params); i++ {
		r.read()
	}
	if params > 0 {
		r.read() // EOF
	}
	for i := 0; i < int(cols); i++ {
		r.read()
	}
	if cols > 0 {
		r.read()
	}
	// execute runs the statement for id and returns the row's c and the
	// final EOF's status flags.
	execute := func(v int64) (string, uint16) {
		t.Helper()
		b := []byte{0x17}
		b = binary.LittleEndian.AppendUint32(b, id)
		b = append(b, 0)                           // no cursor
		b = binary.LittleEndian.AppendUint32(b, 1) // iteration count
		b = append(b, 0, 1, 0x08, 0x00)            // NULL bitmap, types follow: LONGLONG
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
		r.command(b...)
		if h := r.read(); h[0] == 0xff {
			t.Fatalf("execute: %q", h[3:])
		}
		r.read() // the column
		r.read() // EOF
		c := ""
		for {
			p := r.read()
			if p[0] == 0xfe && len(p) < 9 {
				return c, binary.LittleEndian.Uint16(p[3:5])
			}
			// A binary row: header, NULL bitmap (1 byte for one column), value.
			c = string(p[3 : 3+int(p[2])])
		}
	}
	direct := func() int64 {
		got, msg := r.query("SHOW SESSION STATUS LIKE 'Plan_cache_direct'")
		if msg != "" || len(got) != 1 {
			t.Fatalf("Plan_cache_direct: %q %q", got, msg)
		}
		n, err := strconv.ParseInt(got[0][len("Plan_cache_direct\t"):], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// check executes the statement four times, each after before (if
	// not ""), whose own answer sets the flags differently.
	check := func(what, before string, wantFlags uint16) {
		t.Helper()
		d0 := direct()
		for i := int64(1); i <= 4; i++ {
			if before != "" {
				if _, msg := r.query(before); msg != "" {
					t.Fatal(msg)
				}
			}
			c, flags := execute(i%2 + 1)
			if want := string(rune('a' + i%2)); c != want {
				t.Fatalf("%s: execute %d: c = %q, want %q", what, i, c, want)
			}
			if flags&(autocommitFlag|inTransFlag) != wantFlags {
				t.Fatalf("%s: execute %d: status flags %#04x, want autocommit/in-transaction bits %#04x", what, i, flags, wantFlags)
			}
		}
		if d := direct() - d0; d < 3 {
			t.Fatalf("%s: %d of 4 executes ran directly, want at least 3", what, d)
		}
	}
	check("autocommit", "", autocommitFlag)
	check("autocommit, after BEGIN", "BEGIN", autocommitFlag|inTransFlag)
	check("autocommit, after COMMIT", "COMMIT", autocommitFlag)
	if _, msg := r.query("SET autocommit = 0"); msg != "" {
		t.Fatal(msg)
	}
	// COMMIT's OK has no transaction; the SELECT after it begins one.
	check("autocommit = 0, after COMMIT", "COMMIT", inTransFlag)
	check("autocommit = 0", "", inTransFlag)
}
