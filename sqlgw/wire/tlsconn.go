package wire

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"reflect"
	"unsafe"

	"github.com/dolthub/vitess/go/mysql"
)

// TLS connections
//
// The connection rewriter (conn.go) works on MySQL packets, below
// vitess. When a client asks for TLS (an SSLRequest packet in answer to
// the greeting), everything after that packet is TLS records: the
// rewriter passes them through untouched (rewriteConn.raw), and vitess
// wraps the connection in a tls.Conn. Once the client is authenticated,
// ConnectionAuthenticated puts a fresh rewriter above the tls.Conn, so a
// TLS connection gets the same packet fixes as a plain one. Nothing is
// buffered at that moment: the client waits for the OK packet that
// follows.

// isSSLRequest reports whether the packet (header included) is a client's
// SSLRequest: sequence 1, a 32-byte payload with CLIENT_SSL set.
func isSSLRequest(pkt []byte) bool {
	return len(pkt) == 4+32 && pkt[3] == 1 &&
		binary.LittleEndian.Uint32(pkt[4:8])&mysql.CapabilityClientSSL != 0
}

// ConnectionAuthenticated implements mysql.Handler.
func (h *Handler) ConnectionAuthenticated(c *mysql.Conn) error {
	if err := h.Handler.ConnectionAuthenticated(c); err != nil {
		return err
	}
	markAuthenticated(c.Conn) // connlimits.go: connect_timeout ends, wait_timeout starts
	tc, ok := c.Conn.(*tls.Conn)
	if !ok {
		return nil
	}
	br := connReader(c)
	if br == nil || br.Buffered() > 0 {
		return nil // not the vitess this was written for: stay without fixes
	}
	rc := &rewriteConn{Conn: tc, r: bufio.NewReaderSize(tc, 16<<10), reg: h.Conns}
	if old, ok := tc.NetConn().(*rewriteConn); ok {
		old.reg.remove(old)
		// The greeting went out before TLS: COM_CHANGE_USER checks
		// passwords against its scramble (protocol.go).
		rc.proto.greeted, rc.proto.scramble = old.proto.greeted, old.proto.scramble
		rc.limits = old.limits // connlimits.go; the old one counts the connection
		rc.authed.Store(true)
	}
	h.Conns.add(rc)
	c.Conn = rc
	br.Reset(rc)
	return nil
}

// connReader returns the vitess connection's read buffer, which vitess
// keeps unexported; nil if the field is not there.
func connReader(c *mysql.Conn) *bufio.Reader {
	f := reflect.ValueOf(c).Elem().FieldByName("bufferedReader")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*bufio.Reader)(nil)) {
		return nil
	}
	return (*bufio.Reader)(unsafe.Pointer(f.Pointer()))
}

// errInsecureTransport is returned to vitess after refuseInsecure.
var errInsecureTransport = errors.New("sqlgw: connection without TLS refused (require secure transport)")

// refuseInsecure answers a handshake response that did not ask for TLS
// with MySQL's error 3159 and ends the connection.
func (c *rewriteConn) refuseInsecure() error {
	msg := "Connections using insecure transport are prohibited while --require_secure_transport=ON."
	payload := []byte{0xff, byte(erSecureTransportRequired & 0xff), byte(erSecureTransportRequired >> 8), '#'}
	payload = append(payload, "HY000"...)
	payload = append(payload, msg...)
	pkt := append([]byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), 2}, payload...)
	c.Conn.Write(pkt)
	return errInsecureTransport
}

// erSecureTransportRequired is MySQL's ER_SECURE_TRANSPORT_REQUIRED.
const erSecureTransportRequired = 3159
