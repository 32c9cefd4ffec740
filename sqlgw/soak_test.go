package sqlgw_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestSoak is `make soak` (SQLGW_SOAK=1; SQLGW_SOAK_DURATION, default 3m):
// a mixed workload against one server on Pebble for minutes, with
//
//   - writers inserting rows into a keyed and a keyless table, recording
//     every acknowledged row, and autocommit increments of one row from
//     many connections;
//   - floods of idle connections that never log in (closed by
//     connect_timeout; past max_connections clients get 1040);
//   - oversize packets: statements over max_allowed_packet (1153) and 16
//     MiB packets announced before login (1043);
//   - clients that disconnect in the middle of a statement, and KILL QUERY;
//   - the store stalled for 30 s (SQLGW_SOAK_STALL) in the middle of it;
//
// and checks that the process's RSS stays under a bound, that every
// acknowledged row is present exactly once (and no row that was never
// attempted), that the counter holds at least every acknowledged
// increment and at most every attempted one, and that the server is alive
// and serving at the end.
func TestSoak(t *testing.T) {
	if os.Getenv("SQLGW_SOAK") == "" {
		t.Skip("make soak (SQLGW_SOAK=1)")
	}
	duration := 3 * time.Minute
	if v := os.Getenv("SQLGW_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		duration = d
	}
	stallFor := 30 * time.Second
	if v := os.Getenv("SQLGW_SOAK_STALL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		stallFor = d
	}
	const rssLimitMiB = 1024

	inner, err := pebble.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := faultstore.New(inner)
	srv, err := sqlgw.NewServer(context.Background(), sqlgw.Config{
		Listen: "127.0.0.1:0", Store: fs,
		Logger:           slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxConnections:   300,
		ConnectTimeout:   3 * time.Second,
		MaxAllowedPacket: 8 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	defer srv.Close(context.Background())
	addr := srv.Addr().String()
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?timeout=10s", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(64)
	for _, q := range []string{
		"CREATE DATABASE soak",
		"CREATE TABLE soak.rows (id BIGINT PRIMARY KEY, w INT, payload VARCHAR(200))",
		"CREATE TABLE soak.log (token VARCHAR(40), w INT, payload TEXT)",
		"CREATE TABLE soak.counter (id INT PRIMARY KEY, v BIGINT)",
		"INSERT INTO soak.counter VALUES (1, 0)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	ctx, stop := context.WithTimeout(context.Background(), duration)
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[int64]bool{}     // keyed rows acknowledged
	attempted := map[int64]bool{} // keyed rows sent (acknowledged or not)
	ackedLog := map[string]bool{} // keyless rows acknowledged, by token
	triedLog := map[string]bool{}
	var incAcked, incTried, errorsSeen, longest, noGreeting atomic.Int64
	var errKinds sync.Map

	noteErr := func(err error) {
		errorsSeen.Add(1)
		k := err.Error()
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			k = strconv.Itoa(int(me.Number))
		} else if len(k) > 40 {
			k = k[:40]
		}
		v, _ := errKinds.LoadOrStore(k, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}

	// Writers.
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int64(0); ctx.Err() == nil; i++ {
				id := int64(w)<<40 | i
				mu.Lock()
				attempted[id] = true
				mu.Unlock()
				payload := strings.Repeat(string(rune('a'+w)), 20+rand.IntN(150))
				if _, err := db.Exec("INSERT INTO soak.rows VALUES (?, ?, ?)", id, w, payload); err == nil {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				} else {
					noteErr(err)
				}
				tok := fmt.Sprintf("w%d-%d", w, i)
				mu.Lock()
				triedLog[tok] = true
				mu.Unlock()
				if _, err := db.Exec("INSERT INTO soak.log VALUES (?, ?, ?)", tok, w, payload); err == nil {
					mu.Lock()
					ackedLog[tok] = true
					mu.Unlock()
				} else {
					noteErr(err)
				}
			}
		}()
	}
	// Contended autocommit increments.
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				incTried.Add(1)
				start := time.Now()
				if _, err := db.Exec("UPDATE soak.counter SET v = v + 1 WHERE id = 1"); err == nil {
					incAcked.Add(1)
				} else {
					noteErr(err)
				}
				if d := int64(time.Since(start)); d > longest.Load() {
					longest.Store(d)
				}
			}
		}()
	}
	// Readers: scans and aggregates over growing tables.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM soak.log").Scan(&n); err != nil {
				noteErr(err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	// Clients that go away mid-statement, and KILL QUERY.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			c, err := db.Conn(context.Background())
			if err != nil {
				noteErr(err)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			qctx, cancel := context.WithTimeout(context.Background(), time.Duration(20+rand.IntN(300))*time.Millisecond)
			// The driver closes the connection when qctx ends mid-statement.
			c.ExecContext(qctx, "UPDATE soak.counter SET v = v + 0 WHERE id = 1 AND SLEEP(0.5) = 0")
			cancel()
			c.Close()
			var id int64
			victim, err := db.Conn(context.Background())
			if err == nil {
				if err := victim.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err == nil {
					done := make(chan struct{})
					go func() {
						victim.ExecContext(context.Background(), "SELECT SLEEP(3) FROM soak.counter")
						close(done)
					}()
					time.Sleep(time.Duration(50+rand.IntN(200)) * time.Millisecond)
					db.Exec(fmt.Sprintf("KILL QUERY %d", id))
					<-done
				}
				victim.Close()
			}
			time.Sleep(300 * time.Millisecond)
		}
	}()
	// Idle floods and oversize packets.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			var idle []net.Conn
			for i := 0; i < 200; i++ {
				c, err := net.DialTimeout("tcp", addr, 2*time.Second)
				if err != nil {
					break
				}
				idle = append(idle, c)
			}
			// A 16 MiB packet announced before login: 1043 at once.
			if c, err := net.Dial("tcp", addr); err == nil {
				c.SetDeadline(time.Now().Add(10 * time.Second))
				// The greeting waits for the accounts check (accounts.go,
				// NewConnection: at most 5 s, then the loaded accounts;
				// TestGreetingsDuringStoreStall), so on a loaded machine
				// it may still miss the deadline during the stall.
				if code := readPacket(c); code == 0 {
					c.Write([]byte{0xff, 0xff, 0xff, 1})
					if code := readPacket(c); code != 1043 {
						t.Errorf("16 MiB packet before login: %d, want 1043", code)
					}
				} else {
					noGreeting.Add(1)
				}
				c.Close()
			}
			// A statement over max_allowed_packet: 1153, then closed.
			if c, err := db.Conn(context.Background()); err == nil {
				_, err := c.ExecContext(context.Background(), "SELECT LENGTH('"+strings.Repeat("z", 9<<20)+"')")
				var me *mysql.MySQLError
				if err == nil || errors.As(err, &me) && me.Number != 1153 && me.Number != 1040 {
					t.Errorf("9 MiB statement over an 8 MiB max_allowed_packet: %v, want 1153", err)
				}
				c.Raw(func(any) error { return nil })
				c.Close()
			}
			select {
			case <-ctx.Done():
			case <-time.After(4 * time.Second): // past connect_timeout: the server closed them
			}
			for _, c := range idle {
				c.Close()
			}
			time.Sleep(2 * time.Second)
		}
	}()
	// RSS.
	var peak atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if rss := selfRSS(); rss > peak.Load() {
				peak.Store(rss)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}()
	// The stall, a third of the way in.
	go func() {
		select {
		case <-ctx.Done():
		case <-time.After(duration / 3):
			t.Logf("store stalled for %v", stallFor)
			fs.Stall(stallFor)
		}
	}()
	wg.Wait()

	// Alive and serving.
	check, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/?timeout=10s", addr))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var one int
	if err := check.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("server not serving at the end: %v", err)
	}
	// Every acknowledged keyed row exactly once, nothing never sent.
	rows, err := check.Query("SELECT id FROM soak.rows")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		seen[id]++
	}
	rows.Close()
	for id := range acked {
		if seen[id] != 1 {
			t.Errorf("acknowledged row %d present %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if !attempted[id] || n != 1 {
			t.Errorf("row %d present %d times, attempted %v", id, n, attempted[id])
		}
	}
	// Keyless rows: every acknowledged token exactly once, no duplicates.
	rows, err = check.Query("SELECT token FROM soak.log")
	if err != nil {
		t.Fatal(err)
	}
	seenTok := map[string]int{}
	for rows.Next() {
		var tok string
		rows.Scan(&tok)
		seenTok[tok]++
	}
	rows.Close()
	for tok := range ackedLog {
		if seenTok[tok] != 1 {
			t.Errorf("acknowledged keyless row %s present %d times", tok, seenTok[tok])
		}
	}
	for tok, n := range seenTok {
		if !triedLog[tok] || n != 1 {
			t.Errorf("keyless row %s present %d times, attempted %v", tok, n, triedLog[tok])
		}
	}
	var v int64
	if err := check.QueryRow("SELECT v FROM soak.counter WHERE id = 1").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v < incAcked.Load() || v > incTried.Load() {
		t.Errorf("counter %d: acknowledged %d, attempted %d", v, incAcked.Load(), incTried.Load())
	}
	kinds := []string{}
	errKinds.Range(func(k, v any) bool {
		kinds = append(kinds, fmt.Sprintf("%v x%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("%v: %d keyed rows acknowledged of %d, %d keyless of %d, %d increments of %d (counter %d, longest %v); %d errors %v; %d probes without a greeting in 10 s; peak RSS %d MiB",
		duration, len(acked), len(attempted), len(ackedLog), len(triedLog), incAcked.Load(), incTried.Load(), v,
		time.Duration(longest.Load()).Round(time.Millisecond), errorsSeen.Load(), kinds, noGreeting.Load(), peak.Load())
	if time.Duration(longest.Load()) < stallFor/2 {
		t.Errorf("the longest increment took %v: the %v stall did not happen", time.Duration(longest.Load()), stallFor)
	}
	if len(acked) == 0 || incAcked.Load() == 0 {
		t.Error("the workload acknowledged nothing")
	}
	if peak.Load() > rssLimitMiB {
		t.Errorf("peak RSS %d MiB over %d MiB", peak.Load(), rssLimitMiB)
	}
}

// readPacket reads one packet and returns its error code (0: not an
// error, -1: nothing read).
func readPacket(c net.Conn) int {
	hdr := make([]byte, 4)
	if _, err := io.ReadFull(c, hdr); err != nil {
		return -1
	}
	b := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	if _, err := io.ReadFull(c, b); err != nil {
		return -1
	}
	if len(b) >= 3 && b[0] == 0xff {
		return int(b[1]) | int(b[2])<<8
	}
	return 0
}

// selfRSS is this process's resident set size in MiB (0 if unknown).
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb >> 10
}
