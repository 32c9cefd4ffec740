package engine

import (
	"testing"
)

func TestRoundTimeMicros(t *testing.T) {
	for _, tc := range []struct {
		us   int64
		fsp  int
		want int64
	}{
		{1_500_000, 0, 2_000_000},
		{1_499_999, 0, 1_000_000},
		{-1_500_000, 0, -2_000_000}, // half away from zero
		{-1_499_999, 0, -1_000_000},
		{1_123_500, 3, 1_124_000},
		{1_123_499, 3, 1_123_000},
		{1_123_456, 6, 1_123_456},
		{maxTimeMicros + 400_000, 0, maxTimeMicros},
		{-maxTimeMicros - 600_000, 0, -maxTimeMicros},
	} {
		if got := roundTimeMicros(tc.us, tc.fsp); got != tc.want {
			t.Errorf("roundTimeMicros(%d, %d) = %d, want %d", tc.us, tc.fsp, got, tc.want)
		}
	}
}
