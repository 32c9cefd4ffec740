package planner

// BuildIndex plans q on secondary index n of t (its position in
// IndexedTable.Indexes) whatever the cost, for MySQL's FORCE INDEX (a
// table scan counts as very expensive): nil when t has no such index or
// the index answers no conjunct of q (Build's choice then stands).
func BuildIndex(t Table, q *Query, n int) (*Plan, error) {
	it, ok := t.(IndexedTable)
	if !ok {
		return nil, nil
	}
	ixs := it.Indexes()
	if n < 0 || n >= len(ixs) {
		return nil, nil
	}
	if ix := ixs[n]; len(ix.Columns) == 0 || (ix.Local && len(t.PartitionKeyColumns()) == 0) {
		return nil, nil
	}
	cols := t.Columns()
	if err := checkQuery(q, len(cols)); err != nil {
		return nil, err
	}
	where := q.Where
	t, q = collate(t, q)
	it, _ = t.(IndexedTable)
	b := &builder{t: t, q: q, cols: t.Columns()}
	for _, kc := range t.PartitionKeyColumns() {
		b.keys = append(b.keys, b.keyCol(kc, PartitionKey))
	}
	b.nPart = len(b.keys)
	for _, kc := range t.RowKeyColumns() {
		b.keys = append(b.keys, b.keyCol(kc, RowKey))
	}
	for _, k := range b.keys {
		if k.Col < 0 || k.Col >= len(b.cols) {
			return nil, nil
		}
	}
	if b.contradiction() {
		return nil, nil
	}
	p, err := b.planIndex(it, n)
	if p != nil {
		p.where = where
	}
	return p, err
}
