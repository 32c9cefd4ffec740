package wire

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/accounts"
)

// COM_STATISTICS and COM_CHANGE_USER
//
// vitess answers both commands "command handling not implemented yet"
// (1047) before any handler hook, so the listener's connections
// (conn.go, rewriteConn.next) answer them at the packet level. A
// command packet has sequence number 0; while its answer is written here,
// vitess is waiting for the next command and writes nothing. Over TLS the
// packets are not visible, and both commands still get vitess's 1047.
//
//   - COM_STATISTICS (mysqladmin status, PHP mysqli::stat) is answered with
//     MySQL 8.0's bare string (not an OK packet): "Uptime: N  Threads: N
//     Questions: N  Slow queries: 0  Opens: 0  Flush tables: 1  Open tables:
//     0  Queries per second avg: N.NNN". Uptime is the server's, Threads the
//     open connections, Questions go-mysql-server's global count of
//     statements; sqlgw has no slow query log and no table cache, hence the
//     zeros (MariaDB's format lacks "Flush tables").
//   - COM_REFRESH (mysql_refresh, mysqladmin refresh), deprecated since
//     MySQL 5.7 but still sent, answers OK as the FLUSH statements do
//     (session_commands.go): there is nothing to reload.
//   - COM_CHANGE_USER (mysqli::change_user and PHP persistent connections,
//     mysql2 changeUser, Connector/J changeUser) re-authenticates as MySQL
//     does (mysql_native_password or caching_sha2_password over the
//     connection's scramble, an auth switch request for a client that used
//     another plugin than the account's; see changeUser), checks the answer against the stored accounts
//     (accounts_auth.go) and the database, then hands vitess a COM_RESET_CONNECTION
//     in place of the command: go-mysql-server ends the session (the open
//     transaction is rolled back, user variables, session variables and
//     prepared statements are gone) and admin2Handler.ComResetConnection
//     gives the new one the new user and database. The OK vitess writes is
//     renumbered to follow the auth exchange and says autocommit, as
//     MySQL's does. A wrong password is MySQL's 1045 and an unknown
//     database 1049; the connection and its session are then kept as they
//     were (MariaDB does the same; MySQL closes the connection).

const (
	comRefresh         = 0x07
	comStatistics      = 0x09
	comChangeUser      = 0x11
	comResetConnection = 0x1f
)

// protoServer is what the packet-level commands need from the server.
type ProtoServer struct {
	Start time.Time
	Auth  *accounts.AuthServer
	HasDB func(user, host, db string) bool
	Conns *ConnRegistry
}

// changeUser is a COM_CHANGE_USER authenticated and waiting for vitess's
// COM_RESET_CONNECTION (admin2Handler.ComResetConnection).
type changeUser struct {
	User, Host, DB string // host: the account's
}

// protoState is a connection's state for the commands answered here.
type protoState struct {
	changed *changeUser // taken by ComResetConnection
	okSeq   byte        // >0: the next packet written is the change user's OK, renumbered to okSeq
	okBody  bool        // the OK's header was written alone: fix the flags of the body

	greeted  bool   // the server greeting has been written
	scramble []byte // its auth data (20 bytes), nil if not seen
}

// takeChangeUser returns and forgets the pending change of the connection
// from addr.
func (r *ConnRegistry) TakeChangeUser(addr net.Addr) (changeUser, bool) {
	if r == nil || addr == nil {
		return changeUser{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.m[addr.String()]
	if c == nil || c.proto.changed == nil {
		return changeUser{}, false
	}
	cu := *c.proto.changed
	c.proto.changed = nil
	return cu, true
}

// protocolCommand answers COM_STATISTICS and authenticates COM_CHANGE_USER
// (see above). pkt is a whole packet read by next; it returns the packet
// to pass on to vitess, or nil when the command was answered here.
func (c *rewriteConn) protocolCommand(pkt []byte) ([]byte, error) {
	p := c.reg.Proto
	if p == nil || len(pkt) < 5 || pkt[3] != 0 {
		return pkt, nil
	}
	switch pkt[4] {
	case comStatistics:
		return nil, c.writeRaw(1, []byte(p.statistics()))
	case comChangeUser:
		return c.changeUser(p, pkt[5:])
	case comRefresh:
		// mysql_refresh (mysqladmin refresh): OK, as FLUSH (session_commands.go)
		return nil, c.writeRaw(1, []byte{0x00, 0, 0, 0x02, 0, 0, 0})
	}
	return pkt, nil
}

// statistics is MySQL 8.0's COM_STATISTICS string.
func (p *ProtoServer) statistics() string {
	up := int64(time.Since(p.Start) / time.Second)
	var questions uint64
	if _, v, ok := sql.StatusVariables.GetGlobal("Questions"); ok {
		switch v := v.(type) {
		case uint64:
			questions = v
		case int64:
			questions = uint64(v)
		case int:
			questions = uint64(v)
		}
	}
	p.Conns.mu.Lock()
	threads := len(p.Conns.m)
	p.Conns.mu.Unlock()
	qps := 0.0
	if up > 0 {
		qps = float64(questions) / float64(up)
	}
	return fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d  Slow queries: 0  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: %.3f",
		up, threads, questions, qps)
}

// changeUser runs COM_CHANGE_USER's authentication; body is the packet's
// payload after the command byte: user NUL, auth data (1-byte length, as
// every client since 4.1 sends it), database NUL, then the character set
// and the client's plugin name (connection attributes are not needed).
//
// As in MySQL, the auth data is checked against the connection's scramble
// (from the server greeting, see protocolWrite) by the account's plugin:
// mysql_native_password, or caching_sha2_password with its fast path (a
// password cached by an earlier login) or full authentication (the client
// asks for the gateway's RSA key and sends the password encrypted;
// libmariadb on loopback sends it in the clear, as at login). A client
// that used another plugin than the account's gets an auth switch request
// to it with that same scramble. libmariadb answers a switch during change user with the
// old scramble whatever the request carries, so a fresh one would not do.
func (c *rewriteConn) changeUser(p *ProtoServer, body []byte) ([]byte, error) {
	user, body, ok := cutNul(body)
	var auth []byte
	if ok && len(body) > 0 {
		n := int(body[0])
		if 1+n <= len(body) {
			auth, body = body[1:1+n], body[1+n:]
		} else {
			ok = false
		}
	}
	db, plugin := "", ""
	if ok && len(body) > 0 {
		db, body, _ = cutNul(body)
		if len(body) >= 2 {
			plugin, _, _ = cutNul(body[2:])
		}
	}
	if !ok {
		return nil, c.writeErr(1, 1047, "08S01", "Malformed COM_CHANGE_USER packet")
	}

	c.wmu.Lock()
	scramble := c.proto.scramble
	c.wmu.Unlock()
	// The account's plugin decides the exchange: mysql_native_password,
	// or caching_sha2_password as at login (fast path, else full
	// authentication with the RSA key; see accounts_auth.go).
	want := string(mysql.MysqlNativePassword)
	if p.Auth.Plugin(user, c.RemoteAddr()) == string(mysql.CachingSha2Password) {
		want = string(mysql.CachingSha2Password)
	}
	resp, next := auth, byte(1)
	if scramble == nil || (plugin != "" && plugin != want) {
		if scramble == nil { // no greeting seen (cannot happen over plain TCP): a fresh one
			scramble = make([]byte, 20)
			if _, err := rand.Read(scramble); err != nil {
				return nil, err
			}
			for i, b := range scramble {
				scramble[i] = b&0x7f | 1 // never NUL, as MySQL's
			}
		}
		sw := append([]byte{0xfe}, want...)
		sw = append(sw, 0)
		sw = append(sw, scramble...)
		sw = append(sw, 0)
		if err := c.writeRaw(1, sw); err != nil {
			return nil, err
		}
		var seq byte
		var err error
		if resp, seq, err = c.readRaw(); err != nil {
			return nil, err
		}
		next = seq + 1
	}
	var host string
	var err error
	if want == string(mysql.CachingSha2Password) {
		write := func(b []byte) error {
			err := c.writeRaw(next, b)
			next++
			return err
		}
		read := func() ([]byte, error) {
			b, seq, err := c.readRaw()
			next = seq + 1
			return b, err
		}
		host, err = p.Auth.ChangeUserSha2(user, c.RemoteAddr(), scramble, resp, write, read)
	} else {
		host, err = p.Auth.ChangeUser(user, c.RemoteAddr(), false, scramble, resp)
	}
	if err != nil {
		var se *mysql.SQLError
		if errors.As(err, &se) {
			return nil, c.writeErr(next, uint16(se.Number()), se.SQLState(), se.Message)
		}
		return nil, err
	}
	if db != "" && !p.HasDB(user, host, db) {
		return nil, c.writeErr(next, 1049, "42000", fmt.Sprintf("Unknown database '%s'", db))
	}
	c.reg.mu.Lock()
	c.proto.changed = &changeUser{User: user, Host: host, DB: db}
	c.reg.mu.Unlock()
	c.wmu.Lock()
	c.proto.okSeq = next
	c.wmu.Unlock()
	return []byte{1, 0, 0, 0, comResetConnection}, nil
}

func cutNul(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}

// writeRaw writes one packet of payload with sequence number seq.
func (c *rewriteConn) writeRaw(seq byte, payload []byte) error {
	n := len(payload)
	out := make([]byte, 0, 4+n)
	out = append(out, byte(n), byte(n>>8), byte(n>>16), seq)
	out = append(out, payload...)
	_, err := c.Conn.Write(out)
	return err
}

// writeErr writes an error packet.
func (c *rewriteConn) writeErr(seq byte, code uint16, state, msg string) error {
	b := []byte{0xff, byte(code), byte(code >> 8), '#'}
	b = append(b, state...)
	b = append(b, msg...)
	return c.writeRaw(seq, b)
}

// readRaw reads one packet's payload (the auth exchange).
func (c *rewriteConn) readRaw() ([]byte, byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return nil, 0, err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	b := make([]byte, n)
	if _, err := io.ReadFull(c.r, b); err != nil {
		return nil, 0, err
	}
	return b, hdr[3], nil
}

// protocolWrite renumbers the OK vitess writes for the COM_RESET_CONNECTION
// that stands for a COM_CHANGE_USER (its sequence number follows the auth
// exchange) and sets SERVER_STATUS_AUTOCOMMIT in it; vitess may write the
// header and the body separately.
func (c *rewriteConn) protocolWrite(p []byte) []byte {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.proto.greeted {
		c.greeting(p)
	}
	switch {
	case c.proto.okBody:
		c.proto.okBody = false
		if len(p) >= 5 && p[0] == 0x00 && p[1] < 0xfb && p[2] < 0xfb {
			q := append([]byte(nil), p...)
			q[3] |= 0x02
			return q
		}
	case c.proto.okSeq != 0 && len(p) >= 4:
		q := append([]byte(nil), p...)
		q[3] = c.proto.okSeq
		c.proto.okSeq = 0
		if len(q) == 4 {
			c.proto.okBody = true
		} else if len(q) >= 9 && q[4] == 0x00 && q[5] < 0xfb && q[6] < 0xfb {
			q[7] |= 0x02
		}
		return q
	}
	return p
}

// answeredHere ends next for a command protocolCommand answered: the
// error, or the next packet.
func (c *rewriteConn) answeredHere(err error) error {
	if err != nil {
		return err
	}
	return c.next()
}

// greeting takes the scramble from the server's greeting (HandshakeV10),
// which vitess writes first, its header and body possibly separately:
// protocol version 10, server version NUL, connection id (4), auth data
// part 1 (8), filler, capabilities (2), charset, status (2), capabilities
// (2), auth data length, reserved (10), auth data part 2 (12) NUL.
func (c *rewriteConn) greeting(p []byte) {
	if len(p) == 4 {
		return // the header
	}
	c.proto.greeted = true
	if len(p) > 4 && p[3] == 0 && p[4] == 0x0a {
		p = p[4:]
	}
	if len(p) == 0 || p[0] != 0x0a {
		return
	}
	i := bytes.IndexByte(p[1:], 0)
	if i < 0 {
		return
	}
	pos := 1 + i + 1 + 4
	if pos+8+1+2+1+2+2+1+10+12 > len(p) {
		return
	}
	s := append([]byte(nil), p[pos:pos+8]...)
	pos += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10
	c.proto.scramble = append(s, p[pos:pos+12]...)
}
