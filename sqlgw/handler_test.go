package sqlgw

import (
	"bytes"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
)

// The clients' own parsers of UPDATE's info string.
var (
	// mysqljs (OkPacket.parse) reads the info to the end of the packet,
	// after vitess's '#' byte.
	mysqljsChanged = regexp.MustCompile(`^[^:0-9]+: [0-9]+[^:0-9]+: ([0-9]+)[^:0-9]+: [0-9]+[^:0-9]*$`)
	// mysql2 (ResultSetHeader) reads a length-encoded string: '#' = 35
	// bytes.
	mysql2Changed = regexp.MustCompile(`(?i)\schanged:\s*(\d+)`)
)

func TestOKInfoUpdate(t *testing.T) {
	for _, tc := range []struct{ in, changed string }{
		{"Rows matched: 2  Changed: 1  Warnings: 0", "1"},
		{"Rows matched: 123456  Changed: 12345  Warnings: 0", "12345"},
		{"Rows matched: 0  Changed: 0", "0"},
	} {
		info := okInfo(tc.in)
		if len(info) < infoLen {
			t.Fatalf("%q -> %q: shorter than %d bytes", tc.in, info, infoLen)
		}
		m := mysqljsChanged.FindStringSubmatch("#" + info)
		if m == nil || m[1] != tc.changed {
			t.Errorf("%q -> %q: mysqljs reads changedRows %v, want %s", tc.in, info, m, tc.changed)
		}
		m = mysql2Changed.FindStringSubmatch(info[:infoLen])
		if m == nil || m[1] != tc.changed {
			t.Errorf("%q -> %q: mysql2 reads changedRows %v, want %s", tc.in, info[:infoLen], m, tc.changed)
		}
		if !strings.HasPrefix(info, "Rows matched: ") {
			t.Errorf("%q -> %q", tc.in, info)
		}
	}
	if got := okInfo("Statement prepared"); len(got) != infoLen || strings.TrimRight(got, " ") != "Statement prepared" {
		t.Errorf("PREPARE info %q", got)
	}
}

// An OK packet answering COM_STMT_EXECUTE gets the pending info; other
// packets pass unchanged.
func TestOKInfoOnPreparedUpdate(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	reg := &connRegistry{}
	rc := &rewriteConn{Conn: server, reg: reg}
	reg.add(rc)
	defer rc.Close()
	ok := []byte{7, 0, 0, 1, 0x00, 2, 0, 2, 0, 0, 0} // OK, 2 affected
	read := func(n int) []byte {
		buf := make([]byte, n)
		if _, err := io.ReadFull(client, buf); err != nil {
			t.Fatal(err)
		}
		return buf
	}
	go func() {
		reg.setOKInfo(server.RemoteAddr(), okInfo("Rows matched: 2  Changed: 2  Warnings: 0"))
		rc.Write(ok)
		rc.Write(ok) // the info applies once
	}()
	got := read(4 + 7 + 1 + infoLen + len("Warnings: 0"))
	if n := int(got[0]) | int(got[1])<<8 | int(got[2])<<16; n != len(got)-4 || got[3] != 1 {
		t.Fatalf("header %v for %d bytes", got[:4], len(got))
	}
	if m := mysqljsChanged.FindStringSubmatch(string(got[4+7:])); m == nil || m[1] != "2" {
		t.Fatalf("info %q", got[4+7:])
	}
	if again := read(len(ok)); !bytes.Equal(again, ok) {
		t.Fatalf("second OK %v, want %v unchanged", again, ok)
	}
}
