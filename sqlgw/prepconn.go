package sqlgw

import (
	"bufio"
	"io"
	"net"
	"sync"
)

// COM_STMT_PREPARE with := assignments
//
// vitess parses a COM_STMT_PREPARE statement itself (to count its
// parameters) before the handler sees it, so the handler cannot rewrite
// `@v := expr` there as it does for COM_QUERY. MariaDB Connector/ODBC
// prepares its SQLColumns query, so the listener's connections rewrite
// COM_STMT_PREPARE packets instead: a client command is a packet with
// sequence number 0, and only those whose first byte is COM_STMT_PREPARE
// and whose text contains := are rebuilt. The server has no TLS and no
// compression, so the stream is plain packets.

const comStmtPrepare = 0x16

type rewriteListener struct {
	net.Listener
	conns *connRegistry
	// requireTLS refuses clients that do not ask for TLS (tlsconn.go).
	requireTLS bool
}

func (l rewriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &rewriteConn{Conn: c, r: bufio.NewReaderSize(c, 16<<10), reg: l.conns, requireTLS: l.requireTLS}
	l.conns.add(rc)
	return rc, nil
}

// connRegistry finds a connection's rewriteConn by its remote address,
// for the handler.
type connRegistry struct {
	mu sync.Mutex
	m  map[string]*rewriteConn
}

func (r *connRegistry) add(c *rewriteConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*rewriteConn{}
	}
	r.m[c.RemoteAddr().String()] = c
}

func (r *connRegistry) remove(c *rewriteConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[c.RemoteAddr().String()] == c {
		delete(r.m, c.RemoteAddr().String())
	}
}

// setOKInfo makes the next OK packet sent to addr (the answer to the
// COM_STMT_EXECUTE running now) carry info: vitess sends none for
// prepared statements, so mysql2's execute() saw changedRows 0.
func (r *connRegistry) setOKInfo(addr net.Addr, info string) {
	if r == nil || addr == nil {
		return
	}
	r.mu.Lock()
	c := r.m[addr.String()]
	r.mu.Unlock()
	if c != nil {
		c.wmu.Lock()
		c.okInfo = info
		c.wmu.Unlock()
	}
}

type rewriteConn struct {
	net.Conn
	r       *bufio.Reader
	pending []byte // bytes of the current packet not yet read
	reg     *connRegistry

	wmu    sync.Mutex
	okInfo string // for the next OK packet written, see setOKInfo

	// raw: the client asked for TLS (tlsconn.go); the bytes from here on
	// are TLS records, passed through untouched.
	raw bool
	// requireTLS: the client's first packet must be an SSLRequest;
	// answered is set once it has been seen.
	requireTLS, answered bool
}

func (c *rewriteConn) Close() error {
	c.reg.remove(c)
	return c.Conn.Close()
}

// Write adds the pending info to an OK packet that starts p: the first
// packet of a command's answer (sequence number 1).
func (c *rewriteConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	info := c.okInfo
	c.okInfo = ""
	c.wmu.Unlock()
	if info == "" || len(p) < 5 || p[3] != 1 || p[4] != 0x00 {
		return c.Conn.Write(p)
	}
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	if 4+n > len(p) || n+1+len(info) >= 0xffffff {
		return c.Conn.Write(p)
	}
	m := n + 1 + len(info)
	out := make([]byte, 0, len(p)+1+len(info))
	out = append(out, byte(m), byte(m>>8), byte(m>>16), 1)
	out = append(out, p[4:4+n]...)
	out = append(out, '#') // as vitess writes infos: see infoLen
	out = append(out, info...)
	out = append(out, p[4+n:]...)
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (c *rewriteConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 && c.raw {
		return c.r.Read(p)
	}
	if len(c.pending) == 0 {
		if err := c.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// next reads one packet; a prepared statement with := is rewritten.
func (c *rewriteConn) next() error {
	var hdr [4]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	buf := make([]byte, 4+n)
	copy(buf, hdr[:])
	if _, err := io.ReadFull(c.r, buf[4:]); err != nil {
		return err
	}
	if hdr[3] == 0 && n > 1 && n < 0xffffff && buf[4] == comStmtPrepare {
		q := string(buf[5:])
		if rq := rewriteAssignments(q); rq != q && len(rq)+1 < 0xffffff {
			m := len(rq) + 1
			nb := make([]byte, 4+m)
			nb[0], nb[1], nb[2], nb[3] = byte(m), byte(m>>8), byte(m>>16), 0
			nb[4] = comStmtPrepare
			copy(nb[5:], rq)
			buf = nb
		}
	}
	if !c.answered {
		c.answered = true
		c.raw = isSSLRequest(buf)
		if c.requireTLS && !c.raw {
			return c.refuseInsecure()
		}
	}
	c.pending = buf
	return nil
}
