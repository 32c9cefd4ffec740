package wire

import (
	"context"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
)

// recordingHandler notes the name of each handler a statement passes.
type recordingHandler struct {
	mysql.Handler
	name string
	seen *[]string
}

func (r *recordingHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) error {
	*r.seen = append(*r.seen, r.name)
	if r.Handler == nil {
		return nil
	}
	return r.Handler.ComQuery(ctx, c, query, cb)
}

// TestInterceptorOrder: the first interceptor of the list sees a statement
// first and the engine's handler last.
func TestInterceptorOrder(t *testing.T) {
	var seen []string
	list := []Interceptor{{Name: "first"}, {Name: "second"}, {Name: "third"}}
	for i := range list {
		name := list[i].Name
		list[i].Wrap = func(next mysql.Handler) mysql.Handler {
			return &recordingHandler{Handler: next, name: name, seen: &seen}
		}
	}
	h := Chain(&recordingHandler{name: "engine", seen: &seen}, list)
	if err := h.ComQuery(context.Background(), nil, "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, ","); got != "first,second,third,engine" {
		t.Fatalf("order %s, want first,second,third,engine", got)
	}
}
