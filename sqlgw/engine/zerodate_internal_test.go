package engine

import "testing"

// TestParseDateParts: the text forms the zero-date rules classify, and
// their classes (zerodate.go).
func TestParseDateParts(t *testing.T) {
	for _, tc := range []struct {
		in                                     string
		parsed, zero, zeroPart, inRange, calen bool
	}{
		{"0000-00-00", true, true, false, false, false},
		{"0000-00-00 00:00:00", true, true, false, false, false},
		{"0000-00-00 00:00:00.000000", true, true, false, false, false},
		{"0000/00/00", true, true, false, false, false},
		{"00000000", true, true, false, false, false},
		{"00000000000000", true, true, false, false, false},
		{"0000-00-00 10:00:00", true, false, true, false, false},
		{"2024-00-15", true, false, true, false, false},
		{"2024-01-00", true, false, true, false, false},
		{"20240015", true, false, true, false, false},
		{"2024-02-30", true, false, false, true, false},
		{"2024-02-29 23:59:59", true, false, false, true, true},
		{"2024-13-99", true, false, false, false, false},
		{"2024-00-32", true, false, false, false, false},
		{"2024-01-01 24:00:00", false, false, false, false, false},
		{"24-01-01", false, false, false, false, false},
		{"abc", false, false, false, false, false},
		{"2024-01-01x", false, false, false, false, false},
		{"", false, false, false, false, false},
	} {
		p, ok := parseDateParts(tc.in)
		if ok != tc.parsed {
			t.Errorf("%q: parsed %v, want %v", tc.in, ok, tc.parsed)
			continue
		}
		if !ok {
			continue
		}
		if p.zero() != tc.zero || p.zeroPart() != tc.zeroPart || p.inRange() != tc.inRange || p.inRange() && p.calendar() != tc.calen {
			t.Errorf("%q (%+v): zero %v zeroPart %v inRange %v calendar %v, want %v %v %v %v", tc.in, p,
				p.zero(), p.zeroPart(), p.inRange(), p.calendar(), tc.zero, tc.zeroPart, tc.inRange, tc.calen)
		}
	}
}
