package engine

import (
	"context"
	"reflect"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestDirectStateSpare: a direct execute's state (directState) released by
// the session is the next execute's, cleared of everything the last one
// left in it; one taken is no longer the spare (an execute inside another
// gets its own), and without a session every execute gets a new one.
func TestDirectStateSpare(t *testing.T) {
	s := &Session{BaseSession: sql.NewBaseSessionWithClientServer("test", sql.Client{}, 1)}
	ctx := sql.NewContext(context.Background(), sql.WithSession(s))
	st := takeDirectState(ctx)
	st.rows.n, st.rows.closed, st.it.scanned, st.out[0] = 5, true, 7, "row"
	st.it.counters.Requests.Add(1)
	st.spec.single = true
	st.release(ctx)
	got := takeDirectState(ctx)
	if got != st {
		t.Fatal("the released state is not the next execute's")
	}
	if !reflect.ValueOf(got).Elem().IsZero() {
		t.Errorf("the spare is not cleared: %+v", got.rows)
	}
	if s.spareDirect != nil {
		t.Error("a state taken is still the spare")
	}
	if inner := takeDirectState(ctx); inner == got {
		t.Error("an execute inside another got the state in use")
	}
	plain := sql.NewContext(context.Background())
	a := takeDirectState(plain)
	a.release(plain)
	if takeDirectState(plain) == a {
		t.Error("without a session, a state was reused")
	}
}
