package storage

import (
	"math"
	"strconv"
	"testing"
)

// TestFormatODataDouble pins the Double literals: plain decimal notation
// (Azurite ignores exponents), whole values keep a ".0", and the specials
// use OData's names.
func TestFormatODataDouble(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{3, "3.0"},
		{-2.5, "-2.5"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1e21, "1000000000000000000000.0"},
		{1e-7, "0.0000001"},
		{123456789.125, "123456789.125"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "INF"},
		{math.Inf(-1), "-INF"},
	} {
		if got := FormatODataLiteral(Double(tc.v)); got != tc.want {
			t.Errorf("FormatODataLiteral(Double(%g)) = %q, want %q", tc.v, got, tc.want)
		}
	}
	// Every finite literal parses back to the same float64.
	for _, v := range []float64{1e300, 5e-324, math.MaxFloat64, 0.1, 1.0 / 3} {
		s := FormatODataLiteral(Double(v))
		if got, err := strconv.ParseFloat(s, 64); err != nil || got != v {
			t.Errorf("%g renders as %q, which parses as %g, %v", v, s, got, err)
		}
	}
}
