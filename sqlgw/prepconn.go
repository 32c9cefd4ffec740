package sqlgw

import (
	"bufio"
	"io"
	"net"
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

type rewriteListener struct{ net.Listener }

func (l rewriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &rewriteConn{Conn: c, r: bufio.NewReaderSize(c, 16<<10)}, nil
}

type rewriteConn struct {
	net.Conn
	r       *bufio.Reader
	pending []byte // bytes of the current packet not yet read
}

func (c *rewriteConn) Read(p []byte) (int, error) {
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
	c.pending = buf
	return nil
}
