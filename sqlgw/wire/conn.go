package wire

import (
	"bufio"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

type Listener struct {
	net.Listener
	Conns *ConnRegistry
	// requireTLS refuses clients that do not ask for TLS (tlsconn.go).
	RequireTLS bool
	// limits and loop: connlimits.go (Accept is there too).
	Limits connLimits
	Loop   acceptLoop
}

// connRegistry finds a connection's rewriteConn by its remote address,
// for the handler.
type ConnRegistry struct {
	mu    sync.Mutex
	m     map[string]*rewriteConn
	Proto *ProtoServer // COM_STATISTICS, COM_CHANGE_USER (protocol.go)
	// prepareRewrite, if set, rewrites the text of COM_STMT_PREPARE
	// (the server sets it: maintenance_prepare.go, session_commands.go, engine/compat's assign.go).
	PrepareRewrite func(string) string
}

// rewritePrepare is prepareRewrite(q), or q without one.
func (r *ConnRegistry) rewritePrepare(q string) string {
	if r == nil || r.PrepareRewrite == nil {
		return q
	}
	return r.PrepareRewrite(q)
}

func (r *ConnRegistry) add(c *rewriteConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*rewriteConn{}
	}
	r.m[c.RemoteAddr().String()] = c
}

func (r *ConnRegistry) remove(c *rewriteConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[c.RemoteAddr().String()] == c {
		delete(r.m, c.RemoteAddr().String())
	}
}

// setOKInfo makes the next OK packet sent to addr (the answer to the
// COM_STMT_EXECUTE running now) carry info: vitess sends none for
// prepared statements, so mysql2's execute() saw changedRows 0.
func (r *ConnRegistry) setOKInfo(addr net.Addr, info string) {
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
	reg     *ConnRegistry

	wmu    sync.Mutex
	okInfo string // for the next OK packet written, see setOKInfo
	// prepareText: the text of the last COM_STMT_PREPARE as vitess got
	// it, for its parse error (prepareerr.go).
	prepareText string
	prepareHdr  []byte // its answer's first packet header, held (prepareerr.go)

	// lastCmd is the command byte of the client's last command (0 once
	// the stream is TLS: nothing is rewritten then).
	lastCmd atomic.Uint32

	// raw: the client asked for TLS (tlsconn.go); the bytes from here on
	// are TLS records, passed through untouched.
	raw bool
	// requireTLS: the client's first packet must be an SSLRequest;
	// answered is set once it has been seen.
	requireTLS, answered bool

	proto protoState // protocol.go

	// Limits (connlimits.go).
	limits       connLimits
	authed       atomic.Bool
	connectTimer *time.Timer
	onClose      func()
	closeOnce    sync.Once
	midCommand   bool         // the last packet read was a full 16 MiB one: more follow
	cmdSize      int          // bytes of the command read so far
	budgetHeld   atomic.Int64 // large-command budget held (Close may run on another goroutine)
	bodyDeadline bool         // a read deadline is set for the packet body being read
	passLeft     int          // body bytes of a large packet still to pass through to vitess

	// A handshake packet was read and not answered yet (clienterrs.go).
	awaitingReply bool
	replySeq      byte

	// The lazy wait_timeout deadline (connlimits.go): the one armed on
	// the socket (zero: none of ours), the current wait's end, and whether
	// the connection is waiting for a command.
	waitArmed, waitUntil time.Time
	waiting              bool

	// hdr is next's packet header; pkt the buffer of its last packet,
	// reused for the next one when it fits (Read has copied it out).
	hdr [4]byte
	pkt []byte
}

func (c *rewriteConn) Close() error {
	c.reg.remove(c)
	c.closeOnce.Do(func() {
		c.badHandshakeOnClose() // clienterrs.go: 1043
		if c.connectTimer != nil {
			c.connectTimer.Stop()
		}
		c.limits.budget.release(c.budgetHeld.Swap(0))
		if c.onClose != nil {
			c.onClose()
		}
	})
	return c.Conn.Close()
}

// Client commands whose answer may be an OK packet with an info string.
const (
	comQuery       = 0x03
	comStmtExecute = 0x17
)

// OK packets' info strings
//
// vitess writes an OK packet's info as the byte '#' followed by the text
// to the end of the packet. MySQL and MariaDB write a length-encoded
// string, and that is how most clients read it (the MariaDB and MySQL C
// clients, mysql2, PHP's mysqlnd: '#' read as a length of 35 bytes; the
// clients that take the rest of the packet, mysqljs and PyMySQL, get the
// length byte in front of the text from MySQL as well). Write re-encodes
// the info of the first packet answering COM_QUERY or COM_STMT_EXECUTE
// (sequence number 1: it cannot be a row) as MySQL does, and adds the
// pending info of a prepared UPDATE (setOKInfo). The handler still pads
// infos to 35 bytes (fixInfo), for the OK packets of the second and later
// statements of a multi-statement text, which are not rewritten here;
// canonicalInfo undoes the padding.

// Write rewrites the info of an OK packet that starts p and answers a
// command (see above); everything else passes unchanged.
func (c *rewriteConn) Write(p []byte) (int, error) {
	p = c.protocolWrite(p) // protocol.go: the OK answering COM_CHANGE_USER
	c.wmu.Lock()
	pendingInfo := c.okInfo
	c.okInfo = ""
	c.awaitingReply = false // clienterrs.go
	prepareText := ""
	if c.prepareHdr != nil {
		prepareText = c.prepareText
		c.prepareText = ""
	} else if c.prepareText != "" && len(p) >= 4 && p[3] == 1 && c.lastCmd.Load() == comStmtPrepare {
		// The first packet of the answer to COM_STMT_PREPARE: vitess
		// writes an error packet's header and body apart.
		if len(p) == 4 && c.prepareHdr == nil {
			c.prepareHdr = append([]byte(nil), p...)
			c.wmu.Unlock()
			return len(p), nil
		}
		prepareText = c.prepareText
		c.prepareText = ""
	}
	held := c.prepareHdr != nil
	c.wmu.Unlock()
	if prepareText != "" || held {
		return c.writePrepareAnswer(p, prepareText) // prepareerr.go
	}
	if len(p) < 5 || p[3] != 1 || p[4] != 0x00 {
		return c.Conn.Write(p)
	}
	if cmd := c.lastCmd.Load(); cmd != comQuery && cmd != comStmtExecute {
		return c.Conn.Write(p)
	}
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	if 4+n > len(p) || n >= 0xffffff {
		return c.Conn.Write(p)
	}
	payload := p[4 : 4+n]
	head, ok := okHeaderLen(payload)
	if !ok {
		return c.Conn.Write(p)
	}
	info := pendingInfo
	switch tail := payload[head:]; {
	case len(tail) > 0 && tail[0] == '#':
		info = string(tail[1:])
	case len(tail) > 0:
		return c.Conn.Write(p) // not vitess's format: leave it
	}
	if info == "" {
		return c.Conn.Write(p)
	}
	info = canonicalInfo(info)
	body := make([]byte, 0, head+9+len(info))
	body = append(body, payload[:head]...)
	body = appendLenEncInt(body, uint64(len(info)))
	body = append(body, info...)
	if len(body) >= 0xffffff {
		return c.Conn.Write(p)
	}
	out := make([]byte, 0, 4+len(body)+len(p)-4-n)
	out = append(out, byte(len(body)), byte(len(body)>>8), byte(len(body)>>16), 1)
	out = append(out, body...)
	out = append(out, p[4+n:]...)
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// okHeaderLen returns the length of an OK packet's fixed part: header,
// affected rows, last insert id (length-encoded), status flags, warnings.
func okHeaderLen(payload []byte) (int, bool) {
	pos := 1
	for i := 0; i < 2; i++ {
		if pos >= len(payload) {
			return 0, false
		}
		switch b := payload[pos]; {
		case b < 0xfb:
			pos++
		case b == 0xfc:
			pos += 3
		case b == 0xfd:
			pos += 4
		case b == 0xfe:
			pos += 9
		default:
			return 0, false
		}
	}
	pos += 4
	if pos > len(payload) {
		return 0, false
	}
	return pos, true
}

func appendLenEncInt(b []byte, v uint64) []byte {
	switch {
	case v < 0xfb:
		return append(b, byte(v))
	case v < 1<<16:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v < 1<<24:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return append(b, 0xfe, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

var reInfoCounts = regexp.MustCompile(`^(Rows matched|Records): (\d+)\s+(Changed|Duplicates): (\d+)\s+Warnings: (\d+)$`)

// canonicalInfo is MySQL's text of an info that fixInfo padded: UPDATE's
// "Rows matched: N  Changed: M  Warnings: W" and INSERT's "Records: N
// Duplicates: D  Warnings: W" with their two-space separators, any other info without the trailing blanks (MySQL's infos
// never end with one).
func canonicalInfo(info string) string {
	info = strings.TrimRight(info, " ")
	if m := reInfoCounts.FindStringSubmatch(info); m != nil {
		return m[1] + ": " + m[2] + "  " + m[3] + ": " + m[4] + "  Warnings: " + m[5]
	}
	return info
}

func (c *rewriteConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 && c.raw {
		return c.r.Read(p)
	}
	if len(c.pending) == 0 && c.passLeft > 0 {
		return c.readPassthrough(p)
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

// passthroughMin is the size from which a packet's body is not buffered
// here but handed to vitess as it is read (connlimits.go): vitess copies
// it into its own buffer anyway, and a large command then costs one copy
// less. The commands rewritten or answered here are never that large
// (COM_STMT_PREPARE texts are still buffered whatever their size).
const passthroughMin = 64 << 10

// passthrough starts handing the body of a large packet (header hdr)
// straight through Read; it reports false when the packet must be read
// whole here.
func (c *rewriteConn) passthrough(hdr []byte, n int) (bool, error) {
	if n < passthroughMin || !c.authed.Load() || c.raw {
		return false, nil
	}
	if hdr[3] == 0 {
		b, err := c.r.Peek(1)
		if err != nil {
			return false, err
		}
		switch b[0] {
		case comStmtPrepare, comChangeUser, comStatistics, comRefresh:
			return false, nil
		}
		c.lastCmd.Store(uint32(b[0]))
	}
	c.pending = append([]byte(nil), hdr...)
	c.passLeft = n
	return true, nil
}

// readPassthrough reads body bytes of a passed-through packet.
func (c *rewriteConn) readPassthrough(p []byte) (int, error) {
	if len(p) > c.passLeft {
		p = p[:c.passLeft]
	}
	n, err := c.r.Read(p)
	c.passLeft -= n
	if c.passLeft == 0 && c.bodyDeadline {
		c.bodyDeadline = false
		c.setReadDeadline(time.Time{})
	}
	return n, err
}

// maxReusedPacket is the largest packet buffer a connection keeps for
// the next packet (next): a command of a few hundred bytes, a point
// select's COM_STMT_EXECUTE, costs no allocation.
const maxReusedPacket = 4 << 10

// next reads one packet; a prepared statement with := is rewritten.
func (c *rewriteConn) next() error {
	hdr := c.hdr[:]
	if err := c.readHeader(hdr); err != nil { // connlimits.go
		return err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if err := c.checkPacket(hdr, n); err != nil {
		return err
	}
	if ok, err := c.passthrough(hdr, n); ok || err != nil {
		return err
	}
	var buf []byte
	if 4+n <= cap(c.pkt) {
		buf = c.pkt[:4+n]
	} else {
		buf = make([]byte, 4+n)
		if 4+n <= maxReusedPacket {
			c.pkt = buf
		}
	}
	copy(buf, hdr)
	_, err := io.ReadFull(c.r, buf[4:])
	if c.bodyDeadline {
		c.bodyDeadline = false
		c.setReadDeadline(time.Time{})
	}
	if err != nil {
		return err
	}
	buf, err = c.protocolCommand(buf) // protocol.go: COM_STATISTICS, COM_CHANGE_USER
	if err != nil || buf == nil {
		return c.answeredHere(err)
	}
	if hdr[3] == 0 && n > 0 {
		c.lastCmd.Store(uint32(buf[4]))
	}
	if hdr[3] == 0 && n > 1 && n < 0xffffff && buf[4] == comStmtPrepare {
		q := string(buf[5:])
		if rq := c.reg.rewritePrepare(q); rq != q && len(rq)+1 < 0xffffff {
			m := len(rq) + 1
			nb := make([]byte, 4+m)
			nb[0], nb[1], nb[2], nb[3] = byte(m), byte(m>>8), byte(m>>16), 0
			nb[4] = comStmtPrepare
			copy(nb[5:], rq)
			buf = nb
			q = rq
		}
		c.wmu.Lock()
		c.prepareText = q
		c.wmu.Unlock()
	}
	if !c.answered {
		c.answered = true
		c.raw = isSSLRequest(buf)
		if c.raw {
			c.lastCmd.Store(0) // TLS records from here on: no rewriting
		}
		if c.requireTLS && !c.raw {
			return c.refuseInsecure()
		}
	}
	c.noteHandshakeRead(hdr[3]) // clienterrs.go
	c.pending = buf
	return nil
}
