package gcvt

import (
	"math"
	"testing"
)

// TestAppend: DOUBLE and FLOAT as MySQL and MariaDB write them in text
// rows (the expected texts are MariaDB 10.11's output for the same values).
func TestAppend(t *testing.T) {
	for _, c := range []struct {
		x     float64
		float bool
		want  string
	}{
		{1234567, false, "1234567"},
		{12345678901, false, "12345678901"},
		{123456789012345, false, "123456789012345"},
		{1234567890123456, false, "1.234567890123456e15"},
		{1234567890123456.7, false, "1234567890123456.8"},
		{12345678901234567, false, "1.2345678901234568e16"},
		{1e15, false, "1e15"},
		{1e16, false, "1e16"},
		{1e20, false, "1e20"},
		{1.5e20, false, "1.5e20"},
		{-2.5e25, false, "-2.5e25"},
		{1e300, false, "1e300"},
		{1e-300, false, "1e-300"},
		{5e-324, false, "5e-324"},
		{math.MaxFloat64, false, "1.7976931348623157e308"},
		{0.0001, false, "0.0001"},
		{0.00001, false, "0.00001"},
		{1.5e-7, false, "0.00000015"},
		{-1.5e-7, false, "-0.00000015"},
		{1e-10, false, "0.0000000001"},
		{1e-14, false, "0.00000000000001"},
		{1e-15, false, "0.000000000000001"},
		{1.2345678901234567e-5, false, "0.000012345678901234568"},
		{1.2345678901234567e-14, false, "0.000000000000012345678901234567"},
		{1.2345678901234567e-15, false, "0.0000000000000012345678901234568"},
		{-1.2345678901234567e-14, false, "-0.000000000000012345678901234567"},
		{1.0 / 3, false, "0.3333333333333333"},
		{0.1, false, "0.1"},
		{2.5, false, "2.5"},
		{100, false, "100"},
		{0, false, "0"},
		{math.Copysign(0, -1), false, "0"},
		{float64(float32(1.0 / 3)), true, "0.333333"},
		{float64(float32(123456.789)), true, "123457"},
		{float64(float32(1234567)), true, "1234570"},
		{float64(float32(1e7)), true, "10000000"},
		{float64(float32(3.4028234e38)), true, "3.40282e38"},
		{float64(float32(0.000012345678)), true, "0.0000123457"},
		{float64(float32(-1.5e-7)), true, "-0.00000015"},
		{float64(float32(1e-15)), true, "0.000000000000001"},
		{float64(float32(1.1)), true, "1.1"},
		{float64(float32(0.1)), true, "0.1"},
		{float64(float32(100)), true, "100"},
	} {
		if got := string(Append(nil, c.x, c.float)); got != c.want {
			t.Errorf("%v (float %v): got %s, want %s", c.x, c.float, got, c.want)
		}
	}
}
