package planner

import "github.com/sqlgw/sqlgw/storage"

type builder struct {
	t    Table
	q    *Query
	cols []Column
}

// build is the conservative plan: a TableScan with everything residual.
// (Being replaced by the full planner.)
func (b *builder) build() (*Plan, error) {
	p := &Plan{Path: TableScan, Table: b.t.PhysicalName(), columns: b.cols, where: b.q.Where}
	for i := range b.q.Where {
		p.Residual = append(p.Residual, i)
	}
	p.Queries = []*storage.Query{{}}
	p.Cost = Cost{Requests: 10, Entities: 10000}
	return p, nil
}
