package catalog

import (
	"errors"
	"slices"
	"testing"
)

func TestParseIndexOptions(t *testing.T) {
	for _, c := range []struct {
		in    string
		kind  string
		cover []string
		bad   bool
	}{
		{"", "", nil, false},
		{"just a comment", "", nil, false},
		{"by city sqlgw: global, cover=(name, `e mail`)", "global", []string{"name", "e mail"}, false},
		{"SQLGW: local", "local", nil, false},
		{"sqlgw: cover=a", "", []string{"a"}, false},
		{"sqlgw: global local", "", nil, true},
		{"sqlgw: sideways", "", nil, true},
		{"sqlgw: cover=(a,", "", nil, true},
	} {
		o, err := ParseIndexOptions(c.in)
		if c.bad {
			if !errors.Is(err, ErrInvalidDef) {
				t.Errorf("%q: got %v, want ErrInvalidDef", c.in, err)
			}
			continue
		}
		if err != nil || o.Kind != c.kind || !slices.Equal(o.Cover, c.cover) {
			t.Errorf("%q: got %+v %v", c.in, o, err)
		}
	}
}

func TestChooseIndexKind(t *testing.T) {
	c, ctx := createDB(t)
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "o",
		Columns:    []Column{intCol("cust"), intCol("id"), intCol("x")},
		PrimaryKey: []KeyPart{{Column: "cust"}, {Column: "id"}}})
	if err != nil {
		t.Fatal(err)
	}
	kp := func(cols ...string) []KeyPart {
		var out []KeyPart
		for _, c := range cols {
			out = append(out, KeyPart{Column: c})
		}
		return out
	}
	for _, c := range []struct {
		cols   []KeyPart
		unique bool
		kind   string
		global bool
		bad    bool
	}{
		{kp("x"), false, "", true, false},
		{kp("cust", "x"), false, "", false, false},
		{kp("CUST", "x"), true, "", false, false},
		{kp("x"), false, "local", false, false},
		{kp("x"), true, "local", false, true},
		{kp("cust", "x"), true, "global", true, false},
	} {
		g, err := ChooseIndexKind(tbl, c.cols, c.unique, c.kind)
		if c.bad != (err != nil) || (!c.bad && g != c.global) {
			t.Errorf("%v unique=%v kind=%q: global=%v err=%v", c.cols, c.unique, c.kind, g, err)
		}
	}
}
