package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/sqlgw/engine/exprconv"
)

// TestIntDatumAsLiteral checks that boundLookup's integer shortcut
// (paramSlot.intDatum) gives, whenever it answers, the Datum of the
// literal literalFor builds (exprconv.Literal), of the same Go type, and
// that it answers for the integer parameters of integer columns (the
// sysbench shapes) at every width boundary of convertInt.
func TestIntDatumAsLiteral(t *testing.T) {
	ctx := sql.NewEmptyContext()
	values := []string{
		"0", "1", "-1", "+7", "007", "-0", "127", "128", "-128", "-129", "255", "256",
		"32767", "32768", "-32768", "-32769", "65535", "65536",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"18446744073709551615", "18446744073709551616", "1e3", "abc", "",
	}
	bvTypes := []querypb.Type{
		querypb.Type_INT8, querypb.Type_UINT8, querypb.Type_INT16, querypb.Type_UINT16,
		querypb.Type_INT24, querypb.Type_UINT24, querypb.Type_INT32, querypb.Type_UINT32,
		querypb.Type_INT64, querypb.Type_UINT64, querypb.Type_YEAR, querypb.Type_VARCHAR,
		querypb.Type_DECIMAL, querypb.Type_FLOAT64,
	}
	slotTypes := []sql.Type{
		types.Int8, types.Uint8, types.Int16, types.Int32, types.Uint32, types.Int64,
		types.Uint64, types.Float64, types.LongText,
	}
	answered := 0
	for _, st := range slotTypes {
		for _, expanded := range []bool{false, true} {
			sl := &paramSlot{param: "v1", typ: st, expanded: expanded, int64: int64Typed(st)}
			for _, bt := range bvTypes {
				for _, v := range values {
					bv := &querypb.BindVariable{Type: bt, Value: []byte(v)}
					name := fmt.Sprintf("slot %s expanded=%v, %s %q", st, expanded, bt, v)
					got, ok := sl.intDatum(bv)
					wantShort := !expanded && int64Typed(st) && bt != querypb.Type_VARCHAR &&
						bt != querypb.Type_DECIMAL && bt != querypb.Type_FLOAT64 && parsesInt64(v)
					if ok != wantShort {
						t.Errorf("%s: intDatum answered %v, want %v", name, ok, wantShort)
					}
					if !ok {
						continue
					}
					answered++
					lit, litOK := sl.literalFor(ctx, bv, nil)
					if !litOK {
						t.Errorf("%s: intDatum %#v, literalFor declines", name, got)
						continue
					}
					want, dOK := exprconv.Literal(ctx, lit)
					if !dOK || !reflect.DeepEqual(got, want) {
						t.Errorf("%s: intDatum %#v (%T), literal's Datum %#v (%T, %v)", name, got, got, want, want, dOK)
					}
				}
			}
		}
	}
	if answered == 0 {
		t.Fatal("intDatum never answered")
	}
}

func parsesInt64(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}
