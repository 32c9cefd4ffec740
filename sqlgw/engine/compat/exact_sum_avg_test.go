package compat

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestExactAggBufferIntegers: the exact SUM and AVG buffer's integer
// fast path (int64 partial sums folded into the decimal sum before they
// overflow) gives the sum and average of the values computed in decimals
// one by one, for values of every integer width near their limits, mixed
// with NULLs and decimals, and for sums far past BIGINT's range.
func TestExactAggBufferIntegers(t *testing.T) {
	ctx := sql.NewEmptyContext()
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func() any {
		switch rng.IntN(12) {
		case 0:
			return nil
		case 1:
			return int64(math.MaxInt64 - rng.Int64N(3))
		case 2:
			return int64(math.MinInt64 + rng.Int64N(3))
		case 3:
			return uint64(math.MaxUint64 - rng.Uint64N(3))
		case 4:
			return uint64(math.MaxInt64) + rng.Uint64N(2)
		case 5:
			return int32(rng.Int32())
		case 6:
			return int8(rng.IntN(256) - 128)
		case 7:
			return uint32(rng.Uint32())
		case 8:
			return decimal.New(rng.Int64N(1000000)-500000, -2)
		case 9:
			return int16(rng.IntN(65536) - 32768)
		case 10:
			return uint8(rng.IntN(256))
		}
		return rng.Int64() - rng.Int64()
	}
	for trial := range 200 {
		n := rng.IntN(40)
		vals := make([]any, n)
		want := decimal.Decimal{}
		var count int64
		for i := range vals {
			vals[i] = pick()
			if vals[i] == nil {
				continue
			}
			d, _, err := types.InternalDecimalType.Convert(ctx, vals[i])
			if err != nil {
				t.Fatal(err)
			}
			want = want.Add(d.(decimal.Decimal))
			count++
		}
		for _, avg := range []bool{false, true} {
			b := &exactAggBuffer{expr: expression.NewGetField(0, types.Int64, "x", true), avg: avg, scale: 4}
			for _, v := range vals {
				if err := b.Update(ctx, sql.Row{v}); err != nil {
					t.Fatal(err)
				}
			}
			got, _ := b.Eval(ctx)
			exp := exactResult(want, count, avg, 4)
			if (got == nil) != (exp == nil) || got != nil && !got.(decimal.Decimal).Equal(exp.(decimal.Decimal)) ||
				got != nil && got.(decimal.Decimal).String() != exp.(decimal.Decimal).String() {
				t.Fatalf("trial %d avg %v over %v: %v, want %v", trial, avg, vals, got, exp)
			}
		}
	}
}
