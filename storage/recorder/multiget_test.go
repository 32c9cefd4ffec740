package recorder

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestMultiGetRecordedAsGets: a MultiGet is counted and traced as the Get
// requests it stands for (an absent entity as Get's not-found error), and
// its entities are the loop's.
func TestMultiGetRecordedAsGets(t *testing.T) {
	s := newStore(t)
	base := context.Background()
	if err := s.CreateTable(base, "tab"); err != nil {
		t.Fatal(err)
	}
	for _, rk := range []string{"a", "b"} {
		if _, err := s.Insert(base, "tab", ent("p", rk, storage.Properties{"v": storage.Int64(1)})); err != nil {
			t.Fatal(err)
		}
	}
	keys := []storage.EntityKey{{PK: "p", RK: "a"}, {PK: "p", RK: "zz"}, {PK: "p", RK: "b"}}
	opts := &storage.GetOptions{Select: []string{"v"}}
	run := func(f func(ctx context.Context) ([]*storage.Entity, error)) ([]*storage.Entity, Snapshot, string) {
		var c Counters
		var tr bytes.Buffer
		es, err := f(WithTrace(WithCounters(base, &c), &tr))
		if err != nil {
			t.Fatal(err)
		}
		return es, c.Snapshot(), tr.String()
	}
	ge, gc, gt := run(func(ctx context.Context) ([]*storage.Entity, error) {
		return storage.GetEach(ctx, s, "tab", keys, opts)
	})
	me, mc, mt := run(func(ctx context.Context) ([]*storage.Entity, error) { return s.MultiGet(ctx, "tab", keys, opts) })
	if !reflect.DeepEqual(me, ge) || me[1] != nil || me[0] == nil {
		t.Errorf("entities: MultiGet %v, Get %v", me, ge)
	}
	if mc != gc || gc.Requests != 3 || gc.Errors != 1 || gc.EntitiesRead != 2 {
		t.Errorf("counters: MultiGet %v, Get %v", mc, gc)
	}
	if mt != gt {
		t.Errorf("trace: MultiGet\n%s\nGet\n%s", mt, gt)
	}
}
