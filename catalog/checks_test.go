package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// CHECK constraints and the column expressions (ON UPDATE, GENERATED)
// persist in the table record, survive a reload by another Catalog, and
// records written before these fields existed still load.
func TestChecksAndColumnExpressions(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := openDB(t, s, "d")
	def := simpleDef("t")
	def.Columns = append(def.Columns,
		Column{Name: "ts", Type: Type{Kind: KindTimestamp}, Default: "CURRENT_TIMESTAMP", HasDefault: true, OnUpdate: "CURRENT_TIMESTAMP"},
		Column{Name: "g", Type: Type{Kind: KindInt64}, Nullable: true, Generated: "(`id` * 2)", Virtual: true},
		Column{Name: "s", Type: Type{Kind: KindInt64}, Nullable: true, Generated: "(`id` + 1)"})
	if _, err := a.CreateTable(ctx, "d", def); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateTable(ctx, "d", simpleDef("u")); err != nil {
		t.Fatal(err)
	}
	tb, err := a.AddCheck(ctx, "d", "t", Check{Name: "pos", Expr: "(`id` > 0)"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddCheck(ctx, "d", "t", Check{Expr: "(`id` < 100)", NotEnforced: true}); err != nil {
		t.Fatal(err)
	}
	// Unnamed checks are named <table>_chk_<n>, skipping names in use.
	if _, err := a.AddCheck(ctx, "d", "u", Check{Name: "u_chk_1", Expr: "(`id` > 1)"}); err != nil {
		t.Fatal(err)
	}
	u, err := a.AddCheck(ctx, "d", "u", Check{Expr: "(`id` > 2)"})
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Checks[1].Name; got != "u_chk_2" {
		t.Errorf("generated name %q, want u_chk_2", got)
	}
	// Names are unique per database, case-insensitively.
	if _, err := a.AddCheck(ctx, "d", "u", Check{Name: "POS", Expr: "(`id` > 0)"}); !errors.Is(err, ErrCheckExists) {
		t.Errorf("duplicate name in another table: %v, want ErrCheckExists", err)
	}
	if _, err := a.AddCheck(ctx, "d", "t", Check{Name: "pos", Expr: "(`id` > 0)"}); !errors.Is(err, ErrCheckExists) {
		t.Errorf("duplicate name in the same table: %v, want ErrCheckExists", err)
	}
	if _, err := a.DropCheck(ctx, "d", "t", "nosuch"); !errors.Is(err, ErrNoCheck) {
		t.Errorf("drop unknown: %v, want ErrNoCheck", err)
	}
	// The snapshot returned before is unchanged by later DDL.
	if len(tb.Checks) != 1 {
		t.Errorf("old snapshot changed: %+v", tb.Checks)
	}

	b := open(t, s, Options{})
	bt, err := b.Table(ctx, "d", "t")
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{{Name: "pos", Expr: "(`id` > 0)"}, {Name: "t_chk_1", Expr: "(`id` < 100)", NotEnforced: true}}
	if len(bt.Checks) != 2 || bt.Checks[0] != want[0] || bt.Checks[1] != want[1] {
		t.Errorf("reloaded checks %+v, want %+v", bt.Checks, want)
	}
	ts, g, sc := bt.Columns[bt.ColumnIndex("ts")], bt.Columns[bt.ColumnIndex("g")], bt.Columns[bt.ColumnIndex("s")]
	if ts.OnUpdate != "CURRENT_TIMESTAMP" || g.Generated != "(`id` * 2)" || !g.Virtual || sc.Generated != "(`id` + 1)" || sc.Virtual {
		t.Errorf("reloaded columns: %+v %+v %+v", ts, g, sc)
	}
	if _, err := b.DropCheck(ctx, "d", "t", "POS"); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	at, _ := a.Table(ctx, "d", "t")
	if len(at.Checks) != 1 || at.Checks[0].Name != "t_chk_1" {
		t.Errorf("after drop by the other catalog: %+v", at.Checks)
	}
	// The name is free again.
	if _, err := a.AddCheck(ctx, "d", "u", Check{Name: "pos", Expr: "(`id` > 0)"}); err != nil {
		t.Errorf("re-adding a dropped name: %v", err)
	}
}

// A record written before checks and column expressions existed decodes
// with none of them, and new records only grow by omitempty fields.
func TestChecksBackwardCompatibleRecord(t *testing.T) {
	old := `{"id":1,"db":"d","name":"t","cols":[{"name":"id","type":{"k":5},"prop":"c0"}],"pk":[{"col":"id"}],"phys":"x","gen":0,"ver":1,"nextidx":0}`
	var tb Table
	if err := json.Unmarshal([]byte(old), &tb); err != nil {
		t.Fatal(err)
	}
	if tb.Checks != nil || tb.Columns[0].OnUpdate != "" || tb.Columns[0].Generated != "" || tb.Columns[0].Virtual {
		t.Errorf("old record decoded with features: %+v", tb)
	}
	out, err := json.Marshal(&tb)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"checks"`, `"onupd"`, `"gen":"`, `"virt"`} {
		if strings.Contains(string(out), k) {
			t.Errorf("record without features encodes %s: %s", k, out)
		}
	}
}

// Triggers persist in their table's record; names are unique per database;
// dropping the table drops them.
func TestTriggersPersist(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := openDB(t, s, "d")
	for _, n := range []string{"t", "u"} {
		if _, err := a.CreateTable(ctx, "d", simpleDef(n)); err != nil {
			t.Fatal(err)
		}
	}
	tr := Trigger{Name: "t_bi", Create: "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.v = 'x'", CreatedAt: 42, SQLMode: "ANSI_QUOTES"}
	if _, err := a.AddTrigger(ctx, "d", "t", tr); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddTrigger(ctx, "d", "u", Trigger{Name: "T_BI", Create: "CREATE TRIGGER ..."}); !errors.Is(err, ErrTriggerExists) {
		t.Errorf("duplicate name: %v, want ErrTriggerExists", err)
	}
	b := open(t, s, Options{})
	bt, err := b.Table(ctx, "d", "t")
	if err != nil {
		t.Fatal(err)
	}
	if len(bt.Triggers) != 1 || bt.Triggers[0] != tr {
		t.Errorf("reloaded triggers %+v, want %+v", bt.Triggers, tr)
	}
	if _, err := b.DropTrigger(ctx, "d", "nosuch"); !errors.Is(err, ErrNoTrigger) {
		t.Errorf("drop unknown: %v", err)
	}
	if _, err := b.DropTrigger(ctx, "d", "T_bi"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddTrigger(ctx, "d", "u", tr); err != nil {
		t.Fatal(err)
	}
	if err := b.DropTable(ctx, "d", "u"); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddTrigger(ctx, "d", "t", tr); err != nil {
		t.Errorf("name free again after its table was dropped: %v", err)
	}
}
