package wire

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

// Errors a MySQL client expects
//
// Some failures reached clients as go-mysql-server's generic 1105, or as
// nothing at all, where MySQL sends a specific error that clients and
// tools act on:
//
//   - An empty statement (only blanks and comments) is 1065
//     ER_EMPTY_QUERY "Query was empty" (42000), as MySQL; it was an OK.
//     Executable comments (/*! ... */) are not empty, and a text made
//     only of MariaDB's /*M! ... */ comments stays an OK (handler.go).
//   - A statement stopped by KILL QUERY is 1317 ER_QUERY_INTERRUPTED
//     "Query execution was interrupted" (70100); it was 1105 "context
//     canceled". A statement whose connection is killed (KILL n, KILL
//     CONNECTION n) ends with 1927 ER_CONNECTION_KILLED "Connection was
//     killed" (70100) if the error gets out before the connection is
//     closed, else the client sees the connection lost (its 2013), as
//     with MySQL and MariaDB.
//   - A handshake response vitess cannot parse (or a packet out of
//     sequence during the handshake) is answered 1043 ER_HANDSHAKE_ERROR
//     "Bad handshake" (08S01) before the connection is closed, as mysqld
//     does; vitess closed it silently (rewriteConn.Close, below).

const (
	erEmptyQuery       = 1065 // ER_EMPTY_QUERY
	erQueryInterrupted = 1317 // ER_QUERY_INTERRUPTED
	erConnectionKilled = 1927 // ER_CONNECTION_KILLED
)

func errEmptyQuery() error {
	return mysql.NewSQLError(erEmptyQuery, "42000", "Query was empty")
}

// killRegistry remembers the connections a KILL [CONNECTION] statement
// is ending, so that their interrupted statement reports 1927, not 1317.
type killRegistry struct {
	m sync.Map // connection id (uint32) -> struct{}
}

// noteKill records the target of a KILL [CONNECTION] statement.
func (r *killRegistry) noteKill(query string) {
	if id, ok := sqltext.KillConnection(query); ok {
		r.m.Store(id, struct{}{})
	}
}

func (r *killRegistry) killed(id uint32) bool {
	_, ok := r.m.Load(id)
	return ok
}

func (r *killRegistry) forget(id uint32) { r.m.Delete(id) }

// interruptedError maps a statement's cancellation to MySQL's error: 1927
// if its connection is being killed, 1317 otherwise; other errors pass.
func (r *killRegistry) interruptedError(conn uint32, err error) error {
	if err == nil || !errors.Is(err, context.Canceled) {
		var se *mysql.SQLError
		if !errors.As(err, &se) || !strings.Contains(se.Message, context.Canceled.Error()) || se.Num != mysql.ERUnknownError {
			return err
		}
	}
	if r.killed(conn) {
		return mysql.NewSQLError(erConnectionKilled, "70100", "Connection was killed")
	}
	return mysql.NewSQLError(erQueryInterrupted, "70100", "Query execution was interrupted")
}

// Handshake failures (1043): vitess reads the client's handshake response
// through the rewriteConn; when it cannot parse it, it closes the
// connection without a word. rewriteConn.next marks that a handshake
// packet was read (awaitingReply), Write clears the mark, and Close, when
// the mark is still set and the connection never logged in, writes 1043
// first.

// noteHandshakeRead is called by next for every packet read before
// authentication.
func (c *rewriteConn) noteHandshakeRead(seq byte) {
	if c.authed.Load() || c.raw {
		return
	}
	c.wmu.Lock()
	c.awaitingReply, c.replySeq = true, seq+1
	c.wmu.Unlock()
}

// badHandshakeOnClose writes 1043 if the last handshake packet read was
// never answered (see above). Called by Close.
func (c *rewriteConn) badHandshakeOnClose() {
	if c.authed.Load() || c.raw {
		return
	}
	c.wmu.Lock()
	pending, seq := c.awaitingReply, c.replySeq
	c.awaitingReply = false
	c.wmu.Unlock()
	if pending {
		c.writeLocked(errPacket(seq, erHandshakeError, "08S01", "Bad handshake"))
	}
}
