package wire

import (
	"bytes"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
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
	// INSERT's info (insertinfo.go) survives the padding and comes back
	// as MySQL writes it.
	for _, tc := range []struct {
		st       engine.InsertStats
		affected uint64
		want     string
	}{
		{engine.InsertStats{Records: 2}, 2, "Records: 2  Duplicates: 0  Warnings: 0"},
		{engine.InsertStats{Records: 3, Ignore: true}, 1, "Records: 3  Duplicates: 2  Warnings: 0"},
		{engine.InsertStats{Records: 2, Replace: true}, 3, "Records: 2  Duplicates: 1  Warnings: 0"},
	} {
		info := engine.InsertInfo(tc.st, tc.affected, 0)
		if info != tc.want {
			t.Errorf("%+v: %q, want %q", tc.st, info, tc.want)
		}
		if got := canonicalInfo(okInfo(info)); got != tc.want {
			t.Errorf("%q padded and back: %q", info, got)
		}
	}
}

// OK packets' infos reach the client in MySQL's encoding, a
// length-encoded string; a prepared UPDATE's pending info is added once;
// packets that do not answer COM_QUERY/COM_STMT_EXECUTE pass unchanged.
func TestOKInfoOnTheWire(t *testing.T) {
	const update = "Rows matched: 2  Changed: 2  Warnings: 0"
	ok := []byte{7, 0, 0, 1, 0x00, 2, 0, 2, 0, 0, 0} // OK, 2 affected
	// vitess's OK packet with ComQuery's (padded) info: '#' + text.
	padded := okInfo(update)
	withInfo := append([]byte{byte(8 + len(padded)), 0, 0, 1, 0x00, 2, 0, 2, 0, 0, 0, '#'}, padded...)
	for _, tc := range []struct {
		name     string
		cmd      uint32
		pending  string
		write    []byte
		wantInfo string // "" = the packet unchanged
	}{
		{"prepared", comStmtExecute, update, ok, update},
		{"query", comQuery, "", withInfo, update},
		{"query, short info", comQuery, "", append([]byte{byte(8 + 35), 0, 0, 1, 0x00, 0, 0, 2, 0, 0, 0, '#'}, okInfo("Statement prepared")...), "Statement prepared"},
		{"query without info", comQuery, "", ok, ""},
		{"other command", 0x16, "", withInfo, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, client := net.Pipe()
			defer client.Close()
			reg := &ConnRegistry{}
			rc := &rewriteConn{Conn: server, reg: reg}
			rc.lastCmd.Store(tc.cmd)
			reg.add(rc)
			defer rc.Close()
			go func() {
				if tc.pending != "" {
					reg.setOKInfo(server.RemoteAddr(), tc.pending)
				}
				rc.Write(tc.write)
				rc.Write(ok) // a pending info applies once
			}()
			var hdr [4]byte
			if _, err := io.ReadFull(client, hdr[:]); err != nil {
				t.Fatal(err)
			}
			body := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
			if _, err := io.ReadFull(client, body); err != nil {
				t.Fatal(err)
			}
			if hdr[3] != 1 {
				t.Fatalf("sequence %d", hdr[3])
			}
			if tc.wantInfo == "" {
				if !bytes.Equal(append(hdr[:], body...), tc.write) {
					t.Fatalf("changed: %q", body)
				}
			} else {
				info := body[7:]
				if int(info[0]) != len(info)-1 {
					t.Fatalf("length-encoded info %q: length %d", info, info[0])
				}
				if string(info[1:]) != tc.wantInfo {
					t.Fatalf("info %q, want %q", info[1:], tc.wantInfo)
				}
			}
			again := make([]byte, len(ok))
			if _, err := io.ReadFull(client, again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, ok) {
				t.Fatalf("second OK %v, want %v unchanged", again, ok)
			}
		})
	}
}
