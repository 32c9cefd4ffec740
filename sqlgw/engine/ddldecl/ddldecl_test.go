package ddldecl

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
)

// TestNotePartitionBy: what each CREATE TABLE declares, as the engine
// takes it; a partitioning sqlgw cannot have is 1235 at CREATE time.
func TestNotePartitionBy(t *testing.T) {
	for _, c := range []struct {
		query string
		table string
		want  *Decl // nil: nothing noted
		err   bool  // want.Err is a 1235
	}{
		{"CREATE TABLE t (a INT, b INT, PRIMARY KEY (a DESC, b)) PARTITION BY KEY(a) PARTITIONS 4", "t",
			&Decl{Cols: []string{"a"}, Salt: 4, Desc: map[string]bool{"a": true}}, false},
		{"create table T (a int primary key) partition by linear hash(a)", "t", &Decl{Cols: []string{"a"}, Salt: 1}, false},
		{"CREATE TABLE t (a INT, b INT, PRIMARY KEY (b DESC))", "t", &Decl{Desc: map[string]bool{"b": true}}, false},
		{"CREATE TABLE t (a INT PRIMARY KEY) PARTITION BY RANGE(a) (PARTITION p0 VALUES LESS THAN (10))", "t", &Decl{}, true},
		{"CREATE TABLE t (a INT PRIMARY KEY) PARTITION BY HASH(a + 1)", "t", &Decl{}, true},
		{"CREATE TABLE t (a INT PRIMARY KEY) PARTITION BY KEY(a) PARTITIONS 100000", "t", &Decl{}, true},
		{"CREATE TABLE t (a INT PRIMARY KEY)", "t", nil, false}, // neither PARTITION nor DESC: not parsed
		{"SELECT 'partition desc'", "t", nil, false},
	} {
		var p Decls
		p.NotePartitionBy(7, c.query)
		got, ok := p.Take(7, c.table)
		if c.want == nil {
			if ok {
				t.Errorf("%s: noted %+v", c.query, got)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: nothing noted", c.query)
			continue
		}
		var se *mysql.SQLError
		if c.err {
			if !errors.As(got.Err, &se) || se.Num != mysql.ERNotSupportedYet {
				t.Errorf("%s: error %v, want 1235", c.query, got.Err)
			}
			continue
		}
		if !reflect.DeepEqual(&got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.query, got, *c.want)
		}
		if _, again := p.Take(7, c.table); again {
			t.Errorf("%s: taken twice", c.query)
		}
	}
}

// TestIndexDescAndRename: DESC index columns by index name or, unnamed,
// by columns; RENAME TABLE into another database is refused; Clear
// forgets a connection's notes, and connections do not see each other's.
func TestIndexDescAndRename(t *testing.T) {
	var p Decls
	p.NotePartitionBy(1, "CREATE TABLE t (a INT PRIMARY KEY, b INT, KEY kb (b DESC))")
	p.NotePartitionBy(2, "ALTER TABLE t ADD INDEX (b DESC, c)")
	if got := p.TakeIndexDesc(2, "t", "kb", []string{"b"}); got != nil {
		t.Errorf("connection 2 sees connection 1's index: %v", got)
	}
	if got := p.TakeIndexDesc(1, "T", "KB", []string{"b"}); !reflect.DeepEqual(got, map[string]bool{"b": true}) {
		t.Errorf("kb: %v", got)
	}
	if got := p.TakeIndexDesc(2, "t", "", []string{"B", "c"}); !reflect.DeepEqual(got, map[string]bool{"b": true}) {
		t.Errorf("unnamed (b, c): %v", got)
	}
	p.NotePartitionBy(3, "RENAME TABLE d1.t TO d2.t")
	if err := p.RenameError(3); err == nil {
		t.Error("RENAME into another database: no error")
	}
	p.NotePartitionBy(3, "RENAME TABLE t TO u")
	if err := p.RenameError(3); err != nil {
		t.Errorf("RENAME within the database: %v", err)
	}
	p.NotePartitionBy(4, "CREATE TABLE t (a INT PRIMARY KEY) PARTITION BY KEY(a)")
	p.Clear(4)
	if d, ok := p.Take(4, "t"); ok {
		t.Errorf("after Clear: %+v", d)
	}
}

// TestLikeSource: the table CREATE TABLE ... LIKE copies, qualified or
// not; nothing for other statements.
func TestLikeSource(t *testing.T) {
	for _, c := range []struct {
		query, db, table string
		ok               bool
	}{
		{"CREATE TABLE t2 LIKE t1", "", "t1", true},
		{"  create table d.t2 like d1.t1", "d1", "t1", true},
		{"CREATE TABLE t2 (a INT COMMENT 'like')", "", "", false},
		{"SELECT 'create like'", "", "", false},
	} {
		db, table, ok := LikeSource(c.query)
		if db != c.db || table != c.table || ok != c.ok {
			t.Errorf("%s: %q, %q, %v; want %q, %q, %v", c.query, db, table, ok, c.db, c.table, c.ok)
		}
	}
}
