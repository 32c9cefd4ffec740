package planner

import (
	"slices"
	"strings"
	"testing"
)

// saltedFake salts a fakeTable's PartitionKeys with a bucket "<b>|"
// chosen by the key's length.
type saltedFake struct {
	*fakeTable
	n int
}

func (s *saltedFake) SaltBuckets() int             { return s.n }
func (s *saltedFake) SaltPrefix(bucket int) string { return string(rune('0'+bucket)) + "|" }
func (s *saltedFake) Salt(pk string) string        { return s.SaltPrefix(len(pk)%s.n) + pk }

// TestSaltPlans: on a salted table, Gets and single-partition queries
// address the salted partition (no more requests than unsalted), and a
// PartitionKey range or scan becomes one query per bucket, grouped for a
// merge in key order, each with the LIMIT as Top.
func TestSaltPlans(t *testing.T) {
	base, err := parseTable("table s (p int, r int, v int) primary key (p, r)")
	if err != nil {
		t.Fatal(err)
	}
	st := &saltedFake{fakeTable: base, n: 3}
	cmp := func(col int, op CmpOp, v int64) Expr { return &Cmp{Col: col, Op: op, Value: v} }

	// Point get and IN on the whole key: salted keys, logical order kept.
	p, err := Build(st, &Query{Where: []Expr{&In{Col: 0, Values: []Datum{int64(42), int64(7)}}, cmp(1, Eq, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != MultiGet || len(p.Gets) != 2 || p.Gets[0].PK != "2|a7" || p.Gets[1].PK != "0|b42" || p.Groups != nil {
		t.Errorf("MultiGet: %v", p)
	}
	// One partition: one salted query, same cost as unsalted.
	p, err = Build(st, &Query{Where: []Expr{cmp(0, Eq, 42), cmp(1, Gt, 3)}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := Build(base, &Query{Where: []Expr{cmp(0, Eq, 42), cmp(1, Gt, 3)}})
	if p.Path != RowRange || len(p.Queries) != 1 || p.Groups != nil || p.Cost != u.Cost {
		t.Errorf("RowRange: %v", p)
	}
	if k, _ := p.Queries[0].Partition.Single(); k != "0|b42" {
		t.Errorf("RowRange partition %q, want 0|b42", k)
	}
	// A range on the partition key with a LIMIT: 3 bucket queries.
	q := &Query{Where: []Expr{cmp(0, Ge, 10), cmp(0, Lt, 20)}, Limit: 5, OrderBy: []OrderColumn{{Col: 0}, {Col: 1}}}
	p, err = Build(st, q)
	if err != nil {
		t.Fatal(err)
	}
	u, _ = Build(base, q)
	if p.Path != PartitionRange || !slices.Equal(p.Groups, []int{3}) || len(p.Queries) != 3 || !p.OrderSatisfied {
		t.Fatalf("PartitionRange: %v", p)
	}
	if p.Cost.Requests != u.Cost.Requests+2 {
		t.Errorf("PartitionRange costs %v requests, unsalted %v: want 2 more", p.Cost.Requests, u.Cost.Requests)
	}
	for b, q := range p.Queries {
		pre := st.SaltPrefix(b)
		if q.Top != 5 || q.Partition.Low.Key != pre+u.Queries[0].Partition.Low.Key || q.Partition.High.Key != pre+u.Queries[0].Partition.High.Key {
			t.Errorf("bucket %d query %s, unsalted %s", b, FormatQuery(q), FormatQuery(u.Queries[0]))
		}
	}
	if !strings.Contains(p.String(), "salted: 3 bucket queries merged in key order") {
		t.Errorf("EXPLAIN does not say the queries are merged:\n%s", p)
	}
	// A scan: each bucket from its prefix to the next.
	p, err = Build(st, &Query{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path != TableScan || len(p.Queries) != 3 {
		t.Fatalf("TableScan: %v", p)
	}
	for b, q := range p.Queries {
		r := q.Partition
		if r.Low.Key != st.SaltPrefix(b) || r.Low.Exclusive || r.High.Key != st.PrefixEnd(st.SaltPrefix(b)) || !r.High.Exclusive {
			t.Errorf("scan of bucket %d: %s", b, FormatQuery(q))
		}
		for _, k := range []string{st.SaltPrefix(b) + "a1", st.SaltPrefix(b) + "z"} {
			if !r.Contains(k) {
				t.Errorf("scan of bucket %d misses %q", b, k)
			}
		}
		if b > 0 && r.Contains(st.SaltPrefix(b-1)+"a1") {
			t.Errorf("scan of bucket %d reads bucket %d", b, b-1)
		}
	}
}
