package compat

import "github.com/dolthub/go-mysql-server/sql"

// ExactAggregation returns the engine's SUM or AVG that ExactAggRule
// replaced by the exact aggregation e, or nil if e is not one. Direct
// execution (sqlgw/engine/directrange.go) checks the replaced
// aggregation's argument and evaluates e itself, through its buffer.
func ExactAggregation(e sql.Expression) sql.Aggregation {
	if a, ok := e.(*exactAgg); ok {
		return a.Aggregation
	}
	return nil
}
