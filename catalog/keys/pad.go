package keys

import "strings"

// PAD SPACE strings (MySQL's utf8mb4_bin, latin1_bin and every other
// non-0900 "_bin" collation) compare as if the shorter string were padded
// with spaces: 'a' = 'a ', and 'a\t' < 'a' because '\t' < ' '. Their key
// component encodes the string without its trailing spaces, so values equal
// under the collation share one key, with codewords laid out so that byte
// order is the padded order. Part of the format: must not change.
//
// Trailing spaces removed, every remaining run of k spaces is followed by a
// byte c != ' ', and is encoded as one codeword that says how it compares
// with the padding of a shorter string:
//
//	bytes 0x00..0x1F   PadLowEsc  A[b]
//	k spaces, c < ' '  PadRunLow  integer component of k (more spaces: larger)
//	end of string      PadEnd     (sorts like endless spaces)
//	k spaces, c > ' '  PadRunHigh mirrored integer component of k (more spaces: smaller)
//	bytes 0x21..0x2F   PadHighEsc A[b - 0x21]
//	other bytes        as in the NO PAD string encoding ('0'-'9', 'A'-'Z',
//	                   'a'-'z' themselves, ':', '[', '{', '|' escapes)
//
// The decoded value is the string without trailing spaces; the row's exact
// value lives in its property.
const (
	PadLowEsc  = '$'
	PadRunLow  = '&'
	PadEnd     = '('
	PadRunHigh = ')'
	PadHighEsc = '*'
)

// TrimPad removes trailing spaces, the part of a value PAD SPACE ignores.
func TrimPad(s string) string { return strings.TrimRight(s, " ") }

// EncodeStringPadAscending appends the PAD SPACE string component of s.
func EncodeStringPadAscending(b []byte, s string) []byte {
	s = TrimPad(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			k := uint64(j - i)
			if s[j] < ' ' { // j < len(s): trailing spaces are trimmed
				b = EncodeUintAscending(append(b, PadRunLow), k)
			} else {
				b = EncodeUintDescending(append(b, PadRunHigh), k)
			}
			i = j - 1
		case c < 0x20:
			b = append(b, PadLowEsc, Alphabet[c])
		case c <= 0x2F:
			b = append(b, PadHighEsc, Alphabet[c-0x21])
		default:
			b = append(b, byteCode[c][:byteCodeN[c]]...)
		}
	}
	return append(b, PadEnd)
}

// EncodeStringPadDescending appends the descending PAD SPACE component of s.
func EncodeStringPadDescending(b []byte, s string) []byte {
	return descend(b, func(b []byte) []byte { return EncodeStringPadAscending(b, s) })
}

// DecodeStringPadAscending decodes a PAD SPACE string component into the
// string without trailing spaces.
func DecodeStringPadAscending(b []byte) ([]byte, string, error) {
	out := []byte{}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == PadEnd:
			return b[i+1:], string(out), nil
		case c == PadLowEsc || c == PadHighEsc:
			if i+1 >= len(b) {
				return b, "", malformed("truncated escape", b)
			}
			j := int(alphaIndex[b[i+1]])
			if c == PadLowEsc && (j < 0 || j > 0x1F) || c == PadHighEsc && (j < 0 || j+0x21 > 0x2F) {
				return b, "", malformed("bad escape", b[i:])
			}
			if c == PadHighEsc {
				j += 0x21
			}
			out = append(out, byte(j))
			i++
		case c == PadRunLow || c == PadRunHigh:
			var rest []byte
			var k uint64
			var err error
			if c == PadRunLow {
				rest, k, err = DecodeUintAscending(b[i+1:])
			} else {
				rest, k, err = DecodeUintDescending(b[i+1:])
			}
			if err != nil || k == 0 || k > uint64(len(b))*1000 {
				return b, "", malformed("bad space run", b[i:])
			}
			// The run must be followed by a byte on its side of ' '.
			if len(rest) == 0 {
				return b, "", malformed("unterminated string", b)
			}
			next := rest[0]
			low := next == PadLowEsc
			high := next != PadEnd && next != PadRunLow && next != PadRunHigh && !low
			if c == PadRunLow && !low || c == PadRunHigh && !high {
				return b, "", malformed("space run not followed by its byte", b[i:])
			}
			for range k {
				out = append(out, ' ')
			}
			i = len(b) - len(rest) - 1
		case isAlnum(c):
			out = append(out, c)
		case escIndex[c] >= 1: // ':', '[', '{', '|' (not '$': 0x00..0x2F are above)
			e := stringEscapes[escIndex[c]]
			if i+1 >= len(b) {
				return b, "", malformed("truncated escape", b)
			}
			j := int(alphaIndex[b[i+1]])
			if j < 0 || e.start+j > e.end {
				return b, "", malformed("bad escape", b[i:])
			}
			out = append(out, byte(e.start+j))
			i++
		default:
			return b, "", malformed("bad string character", b[i:])
		}
	}
	return b, "", malformed("unterminated string", b)
}

// DecodeStringPadDescending decodes a descending PAD SPACE component.
func DecodeStringPadDescending(b []byte) ([]byte, string, error) {
	return descending(b, DecodeStringPadAscending)
}
