package engine

import (
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

func TestHintEffect(t *testing.T) {
	r := &sqltext.HintRef{Table: "t", Clauses: []sqltext.HintClause{
		{Kind: sqltext.HintUse, Names: []string{"A", "b"}},
		{Kind: sqltext.HintIgnore, Names: []string{"B"}},
		{Kind: sqltext.HintIgnore, Scoped: true, Names: []string{"a"}},
	}}
	h := effectOf(r)
	if !h.allows("a") || h.allows("b") || h.allows("c") || h.force {
		t.Errorf("USE (A, b) IGNORE (B) IGNORE FOR ORDER BY (a): %+v", h)
	}
	hs := &hintSet{refs: []*tableHint{h, effectOf(&sqltext.HintRef{Clauses: []sqltext.HintClause{{Kind: sqltext.HintForce, Names: []string{"c"}}}})}}
	if !hs.allows("c") || !hs.allows("a") || hs.allows("b") || hs.force() {
		t.Errorf("two references: least restrictive, FORCE only if all force")
	}
	if h := effectOf(&sqltext.HintRef{Clauses: []sqltext.HintClause{{Kind: sqltext.HintUse}}}); h.allows("a") {
		t.Errorf("USE INDEX () allows a")
	}
}
