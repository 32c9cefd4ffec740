package catalog

// TableOptions are the sqlgw options of a table comment.
type TableOptions struct {
	// PartitionKey from partition_key=(a,b); nil if absent.
	PartitionKey []string
}

// ParseTableOptions parses the sqlgw options in a table comment, e.g.
// "sqlgw: partition_key=(tenant, region)". A comment without "sqlgw:" has
// no options. Errors wrap ErrInvalidDef.
func ParseTableOptions(comment string) (TableOptions, error) { return TableOptions{}, errTODO }
