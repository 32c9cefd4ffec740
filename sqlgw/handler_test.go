package sqlgw

import (
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
