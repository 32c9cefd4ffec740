package wire

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Connection limits
//
// The listener's connections (conn.go) see every packet before vitess
// does, so the limits a MySQL server puts on its clients are enforced
// there, with MySQL's defaults and error codes:
//
//   - Accept errors. vitess's accept loop returns on any error, which ended
//     the server when it ran out of file descriptors (EMFILE) with every
//     session lost and Serve returning nil. rewriteListener.Accept retries
//     temporary errors (EMFILE, ENFILE, ENOBUFS, ENOMEM, ECONNABORTED,
//     ECONNRESET, EINTR, EAGAIN, timeouts) with a backoff from 5 ms doubling
//     to 1 s, as net/http's Server.Serve does, logging the first of a run;
//     any other error ends Serve with that error (cmd/sqlgw exits 1).
//   - max_connections (Config.MaxConnections, default 151 as MySQL): a
//     connection beyond it is answered with error 1040 "Too many
//     connections" (SQLSTATE 08004) in place of the greeting and closed.
//   - connect_timeout (Config.ConnectTimeout, default 10 s as MySQL): a
//     connection not authenticated that long after it was accepted is
//     closed, whatever it sent (including one still waiting out a failed-
//     login delay, accounts_auth.go: brute force holds no descriptor
//     beyond connect_timeout). Before authentication a packet may hold at
//     most preAuthMaxPacket bytes (a handshake response with every
//     connection attribute is a few KiB): a client announcing more is
//     answered 1043 "Bad handshake" and closed without the body being
//     read or allocated.
//   - wait_timeout (Config.WaitTimeout, default 28800 s as MySQL): an
//     authenticated connection idle that long between commands is sent
//     MySQL 8's error 4031 (ER_CLIENT_INTERACTION_TIMEOUT, sequence 0, as
//     mysqld) and closed. The timeout counts only while sqlgw waits for a
//     command, never while a statement runs.
//   - max_allowed_packet (Config.MaxAllowedPacket, default 64 MiB as MySQL
//     8): a command larger than that (over several 16 MiB packets) is not
//     buffered: its remaining packets are read and discarded (for at most
//     net_read_timeout, 30 s), then error 1153 "Got a packet bigger than
//     'max_allowed_packet' bytes" (SQLSTATE 08S01) is sent and the
//     connection closed, as MySQL does.
//   - Large commands share one budget (Config.LargeCommandBudget, default
//     max_allowed_packet): the bytes of the commands of 1 MiB or more that
//     are being read or run at once. A large command waits for its share
//     before its packets are read (one reservation per command: its size
//     if it is one packet, max_allowed_packet if it spans several 16 MiB
//     packets, held until the command has run), so clients sending
//     large statements at once queue rather than multiply the memory
//     they use: a statement
//     costs about ten times its size while it runs (vitess, the parser and
//     go-mysql-server each copy it: a 20 MiB INSERT peaks near 200 MiB),
//     so the default bounds that to about ten times max_allowed_packet for
//     all large statements together. Small commands never wait.
//   - Packets of 64 KiB or more are handed to vitess as they are read,
//     not buffered here first (conn.go, passthrough).
//
// The @@ variables of these limits (max_connections, connect_timeout,
// wait_timeout, interactive_timeout, max_allowed_packet) report the
// configured values, which the server's flags set. SET [SESSION]
// wait_timeout changes the connection's idle timeout (noteSessionTimeouts),
// as in MySQL; the other limits are the server's (SET GLOBAL of them
// changes only the reported value).

// MySQL's defaults.
const (
	defaultMaxConnections   = 151
	defaultConnectTimeout   = 10 * time.Second
	defaultWaitTimeout      = 28800 * time.Second
	defaultMaxAllowedPacket = 64 << 20
	// preAuthMaxPacket bounds a packet before authentication.
	preAuthMaxPacket = 64 << 10
	// netReadTimeout bounds discarding an oversize command (MySQL's
	// net_read_timeout).
	netReadTimeout = 30 * time.Second
	// largeCommand is the size from which a command takes its share of
	// the large-command budget.
	largeCommand = 1 << 20
)

// MySQL error codes of the connection limits.
const (
	erConCountError           = 1040 // ER_CON_COUNT_ERROR
	erHandshakeError          = 1043 // ER_HANDSHAKE_ERROR
	erNetPacketTooLarge       = 1153 // ER_NET_PACKET_TOO_LARGE
	erClientInteractionTimout = 4031 // ER_CLIENT_INTERACTION_TIMEOUT
)

// connLimits are the limits of a listener's connections.
type connLimits struct {
	maxConns       int
	connectTimeout time.Duration
	waitTimeout    time.Duration
	maxPacket      int
	budget         *byteBudget
}

// byteBudget is a counting semaphore of bytes.
type byteBudget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	total int64
	used  int64
}

func newByteBudget(total int64) *byteBudget {
	b := &byteBudget{total: total}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire takes n bytes, waiting while the budget is used by others; a
// request larger than the whole budget takes all of it. It returns what
// it took (at least 1 byte for n > 0).
func (b *byteBudget) acquire(n int64) int64 {
	if b == nil || n <= 0 {
		return 0
	}
	n = min(n, b.total)
	b.mu.Lock()
	for b.used+n > b.total {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
	return n
}

func (b *byteBudget) release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// temporaryAcceptError reports whether an Accept error is one to retry
// after a pause (net/http's Server.Serve retries the same ones, through
// the deprecated net.Error.Temporary).
func temporaryAcceptError(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO, syscall.EPERM} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// acceptLoop is the state of rewriteListener.Accept.
type acceptLoop struct {
	open  atomic.Int64 // connections accepted and not yet closed
	fatal atomic.Pointer[error]
	Log   *slog.Logger
}

// fatalError is the error that ended the accept loop, if any.
func (a *acceptLoop) FatalError() error {
	if p := a.fatal.Load(); p != nil {
		return *p
	}
	return nil
}

// accept is rewriteListener.Accept's loop: retry temporary errors with a
// backoff, refuse connections over max_connections, wrap the others.
func (l *Listener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			if temporaryAcceptError(err) {
				if delay == 0 {
					delay = 5 * time.Millisecond
					l.Loop.logger().Warn("sqlgw: accepting a connection failed; retrying", "error", err)
				} else {
					delay = min(2*delay, time.Second)
				}
				time.Sleep(delay)
				continue
			}
			l.Loop.fatal.Store(&err)
			l.Loop.logger().Error("sqlgw: accepting connections failed", "error", err)
			return nil, err
		}
		delay = 0
		if m := l.Limits.maxConns; m > 0 && l.Loop.open.Load() >= int64(m) {
			go refuseConn(c, 0, erConCountError, "08004", "Too many connections")
			continue
		}
		l.Loop.open.Add(1)
		rc := &rewriteConn{Conn: c, reg: l.Conns, requireTLS: l.RequireTLS, limits: l.Limits}
		rc.r = bufio.NewReaderSize(deadlineReader{rc}, 16<<10)
		rc.onClose = func() { l.Loop.open.Add(-1) }
		if d := l.Limits.connectTimeout; d > 0 {
			rc.connectTimer = time.AfterFunc(d, func() {
				if !rc.authed.Load() {
					rc.Close()
				}
			})
		}
		l.Conns.add(rc)
		return rc, nil
	}
}

func (a *acceptLoop) logger() *slog.Logger {
	if a == nil || a.Log == nil {
		return slog.Default()
	}
	return a.Log
}

// refuseConn writes one error packet and closes c (with a short write
// deadline: the client may not read).
func refuseConn(c net.Conn, seq byte, code uint16, state, msg string) {
	c.SetWriteDeadline(time.Now().Add(time.Second))
	c.Write(errPacket(seq, code, state, msg))
	c.Close()
}

// errPacket is a whole MySQL error packet.
func errPacket(seq byte, code uint16, state, msg string) []byte {
	b := []byte{0xff, byte(code), byte(code >> 8), '#'}
	b = append(b, state...)
	b = append(b, msg...)
	n := len(b)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, b...)
}

// markAuthenticated stops the connect timeout of the connection under c
// (a rewriteConn, or a tls.Conn over one) and starts its wait_timeout.
func markAuthenticated(c net.Conn) {
	for c != nil {
		if rc, ok := c.(*rewriteConn); ok {
			rc.authed.Store(true)
			if rc.connectTimer != nil {
				rc.connectTimer.Stop()
			}
			c = rc.Conn
			continue
		}
		nc, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return
		}
		c = nc.NetConn()
	}
}

// The wait_timeout's deadline is set lazily (issue 13: two
// SetReadDeadline calls and a clock read per command were 1.2% of a point
// select's CPU): readHeader arms the socket's read deadline at the end of
// the wait only when the one already armed is less than half a
// wait_timeout away (or later than the wait's end: SET wait_timeout
// shortened it), and leaves it armed after the command arrives. A
// deadline armed for an earlier wait may therefore pass early: while the
// connection waits for a command, or in any other read (a packet body, a
// statement's later packets). deadlineReader, the reader under the
// buffered reader, tells these apart: a deadline that passes while the
// connection has not been waiting a whole wait_timeout is re-armed for
// the wait's real end, and one that passes outside a wait is cleared, the
// read retried either way; so the client sees exactly the old behaviour,
// a timeout only after wait_timeout of idleness between commands. Every
// other deadline (net_read_timeout of large commands, the discard of an
// oversized one, anyone calling SetReadDeadline or SetDeadline) goes
// through setReadDeadline, which forgets the lazy one.

// deadlineReader is the reader under c.r (see above).
type deadlineReader struct{ c *rewriteConn }

func (d deadlineReader) Read(p []byte) (int, error) {
	c := d.c
	for {
		n, err := c.Conn.Read(p)
		if n > 0 || err == nil || c.waitArmed.IsZero() || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		if c.waiting {
			if !time.Now().Before(c.waitUntil) {
				return n, err // idle for the whole wait_timeout
			}
			c.armWait(c.waitUntil)
			continue
		}
		c.setReadDeadline(time.Time{}) // an earlier wait's deadline
	}
}

// armWait arms the lazy wait deadline t (see above).
func (c *rewriteConn) armWait(t time.Time) {
	c.Conn.SetReadDeadline(t)
	c.waitArmed = t
}

// setReadDeadline sets a read deadline other than the lazy wait one.
func (c *rewriteConn) setReadDeadline(t time.Time) error {
	c.waitArmed = time.Time{}
	return c.Conn.SetReadDeadline(t)
}

// SetReadDeadline and SetDeadline keep the lazy wait deadline's
// bookkeeping right for deadlines set from outside (a tls.Conn over c).
func (c *rewriteConn) SetReadDeadline(t time.Time) error { return c.setReadDeadline(t) }

func (c *rewriteConn) SetDeadline(t time.Time) error {
	c.waitArmed = time.Time{}
	return c.Conn.SetDeadline(t)
}

// readHeader reads the next packet header, with the limits: the
// wait_timeout while an authenticated connection waits for a command.
func (c *rewriteConn) readHeader(hdr []byte) error {
	waiting := c.authed.Load() && !c.midCommand && c.limits.waitTimeout > 0 && c.r.Buffered() == 0
	c.releaseBudget()
	if !waiting {
		if c.budgetHeld.Load() > 0 {
			// The next packet of a large command: it may not hold its
			// share of the budget forever (MySQL's net_read_timeout).
			c.setReadDeadline(time.Now().Add(netReadTimeout))
			defer c.setReadDeadline(time.Time{})
		}
		_, err := io.ReadFull(c.r, hdr)
		return err
	}
	now := time.Now()
	c.waitUntil = now.Add(c.limits.waitTimeout)
	if c.waitArmed.IsZero() || c.waitArmed.After(c.waitUntil) || c.waitArmed.Sub(now) < c.limits.waitTimeout/2 {
		c.armWait(c.waitUntil)
	}
	c.waiting = true
	_, err := io.ReadFull(c.r, hdr)
	c.waiting = false
	if err != nil && isTimeout(err) { // (its net.Error would escape: not on the way of every command)
		c.writeLocked(errPacket(0, erClientInteractionTimout, "HY000",
			"The client was disconnected by the server because of inactivity. See wait_timeout and interactive_timeout for configuring this behavior."))
		return err
	}
	return err
}

// checkPacket applies the size limits to a packet whose header was just
// read (its body not yet): it returns an error, after answering the
// client, when the connection must end.
func (c *rewriteConn) checkPacket(hdr []byte, n int) error {
	seq := hdr[3]
	if !c.authed.Load() {
		if n > preAuthMaxPacket {
			c.writeLocked(errPacket(seq+1, erHandshakeError, "08S01", "Bad handshake"))
			return errBadHandshake
		}
		return nil
	}
	if !c.midCommand {
		c.cmdSize = 0
	}
	c.cmdSize += n
	c.midCommand = n == 0xffffff
	if c.limits.maxPacket > 0 && c.cmdSize > c.limits.maxPacket {
		// Discard the rest of the command, then answer as MySQL.
		c.setReadDeadline(time.Now().Add(netReadTimeout))
		next := int64(n)
		for {
			if _, err := io.CopyN(io.Discard, c.r, next); err != nil {
				break
			}
			if next < 0xffffff {
				break
			}
			var h [4]byte
			if _, err := io.ReadFull(c.r, h[:]); err != nil {
				break
			}
			seq = h[3]
			next = int64(h[0]) | int64(h[1])<<8 | int64(h[2])<<16
		}
		c.setReadDeadline(time.Time{})
		c.writeLocked(errPacket(seq+1, erNetPacketTooLarge, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes"))
		return errPacketTooLarge
	}
	if c.limits.budget != nil && c.budgetHeld.Load() == 0 && (c.cmdSize >= largeCommand || c.midCommand) {
		// One reservation per command, never topped up (two commands
		// each waiting for more while holding part would deadlock): a
		// command of one packet takes its size, one of several the most
		// it may grow to (max_allowed_packet, or the whole budget).
		want := int64(n)
		if c.midCommand {
			want = c.limits.budget.total
			if c.limits.maxPacket > 0 {
				want = int64(c.limits.maxPacket)
			}
		}
		c.budgetHeld.Store(c.limits.budget.acquire(want))
	}
	if c.budgetHeld.Load() > 0 {
		// A packet of a command holding budget must come in reasonable
		// time: 30 s plus 256 KiB/s.
		c.setReadDeadline(time.Now().Add(netReadTimeout + time.Duration(n>>18)*time.Second))
		c.bodyDeadline = true
	}
	return nil
}

// releaseBudget returns the budget the last command took.
func (c *rewriteConn) releaseBudget() {
	if c.midCommand {
		return
	}
	c.limits.budget.release(c.budgetHeld.Swap(0))
}

// writeLocked writes p under the connection's write lock.
func (c *rewriteConn) writeLocked(p []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	c.Conn.Write(p)
	c.Conn.SetWriteDeadline(time.Time{})
}

var (
	errBadHandshake   = errors.New("sqlgw: bad handshake: packet too large before authentication")
	errPacketTooLarge = errors.New("sqlgw: command larger than max_allowed_packet")
)

// connLimits resolves the configured limits (0: MySQL's default, <0: none).
// limitsConfig holds the server's settings for the connection limits
// (sqlgw.Config documents each; zero means MySQL's default).
type LimitsConfig struct {
	MaxConnections     int
	ConnectTimeout     time.Duration
	WaitTimeout        time.Duration
	MaxAllowedPacket   int
	LargeCommandBudget int64
}

func (cfg *LimitsConfig) Limits() connLimits {
	pick := func(v, def time.Duration) time.Duration {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	l := connLimits{
		maxConns:       cfg.MaxConnections,
		connectTimeout: pick(cfg.ConnectTimeout, defaultConnectTimeout),
		waitTimeout:    pick(cfg.WaitTimeout, defaultWaitTimeout),
		maxPacket:      cfg.MaxAllowedPacket,
	}
	switch {
	case l.maxConns == 0:
		l.maxConns = defaultMaxConnections
	case l.maxConns < 0:
		l.maxConns = 0
	}
	switch {
	case l.maxPacket == 0:
		l.maxPacket = defaultMaxAllowedPacket
	case l.maxPacket < 0:
		l.maxPacket = 0
	}
	budget := cfg.LargeCommandBudget
	if budget == 0 && l.maxPacket > 0 {
		budget = int64(l.maxPacket)
	}
	if budget > 0 {
		l.budget = newByteBudget(max(budget, largeCommand))
	}
	return l
}

// publishLimits makes @@max_connections, @@connect_timeout, @@wait_timeout,
// @@interactive_timeout and @@max_allowed_packet report the limits in
// force (the variables are global to the process, like the engine's).
func PublishLimits(l connLimits) {
	vals := map[string]any{}
	if l.maxConns > 0 {
		vals["max_connections"] = int64(min(l.maxConns, 100000))
	}
	if l.connectTimeout > 0 {
		vals["connect_timeout"] = int64(max(2, min(l.connectTimeout/time.Second, 31536000)))
	}
	if l.waitTimeout > 0 {
		s := int64(max(1, min(l.waitTimeout/time.Second, 31536000)))
		vals["wait_timeout"], vals["interactive_timeout"] = s, s
	}
	if l.maxPacket > 0 {
		vals["max_allowed_packet"] = uint64(max(1024, min(l.maxPacket, 1<<30)))
	}
	for name, v := range vals {
		sql.SystemVariables.AssignValues(map[string]any{name: v})
	}
}

// noteSessionTimeouts applies a statement's SET [SESSION] wait_timeout to
// its connection (SET GLOBAL reaches the sessions that start later, which
// copy the global value, from their first statement on). Only short
// statements that name the variable are looked at.
func (h *Handler) noteSessionTimeouts(c *mysql.Conn, query string) {
	if len(query) > 4096 || !containsFoldASCII(query, "wait_timeout") || h.Conns == nil {
		return
	}
	s := h.GW.Session(c.ConnectionID)
	if s == nil {
		return
	}
	v, err := s.GetSessionVariable(varCtx(), "wait_timeout")
	if err != nil {
		return
	}
	secs, ok := v.(int64)
	if !ok || secs <= 0 {
		return
	}
	h.Conns.mu.Lock()
	rc := h.Conns.m[c.RemoteAddr().String()]
	h.Conns.mu.Unlock()
	if rc != nil {
		rc.limits.waitTimeout = time.Duration(secs) * time.Second
	}
}

// containsFoldASCII reports whether s contains sub (lowercase ASCII),
// ignoring ASCII case, without allocating.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
