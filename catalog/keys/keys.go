// Package keys is sqlgw's order-preserving key encoding: SQL values to
// PartitionKey/RowKey strings whose ordinal order is the SQL order.
//
// Encoders are append-style, as in cockroach's pkg/util/encoding:
// EncodeXAscending(b, v) appends one component to b, DecodeXAscending(b)
// returns the rest of b after the component, and the value. The
// Descending variants store the complement, so that byte order is reversed.
//
// # Properties
//
// Every encoded component
//
//   - is printable ASCII from the key alphabet: '!' (0x21) to '~' (0x7E)
//     without the characters the Table service forbids in keys (/ \ # ?),
//     and without % ' + (which need escaping in URLs and OData literals);
//     all Table-service control characters are therefore excluded too, and
//     UTF-8, UTF-16 and byte order coincide, as do UTF-16 units and bytes
//     for length limits;
//   - is prefix-free: no component is a prefix of another component of the
//     same column type, so a composite key is the plain concatenation of its
//     components, a prefix of components is a string prefix, and comparing
//     two composites compares their first differing component;
//   - sorts ordinally exactly as the SQL values sort (ascending), or in
//     reverse (descending);
//   - decodes back to exactly the value (for -0.0 see EncodeFloatAscending).
//
// NULL is one character, '!', the lowest of the alphabet; its descending form
// is '~', the highest: NULLs sort first ascending and last descending, as in
// MySQL. No non-NULL component starts with '!' or '~', in either direction.
//
// # Format
//
// The format is part of sqlgw's persisted data: it must not change. Each
// constant below documents its part. "A" is the key alphabet above (87
// characters, in byte order); the descending form of a component is its
// ascending form with every character c replaced by Mirror(c), the character
// at the mirrored position of A (A[i] <-> A[86-i]).
package keys

import (
	"errors"
	"fmt"
)

// ErrMalformed is returned by decoders for input that no encoder produces.
var ErrMalformed = errors.New("keys: malformed key")

// Alphabet is the key alphabet in ascending order: '!'..'~' without
// # % ' + / ? \ . Part of the format.
const Alphabet = "!\"$&()*,-.0123456789:;<=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// Markers and structural characters. Part of the format: must not change.
const (
	// Null is the whole ascending component of a SQL NULL.
	Null = '!'
	// NullDesc is the whole descending component of a SQL NULL.
	NullDesc = '~'

	// Integers (every integer kind, TIME as microseconds, YEAR, ENUM index,
	// SET bitmask, BIT): a length marker, then decimal digits. A value
	// v >= 0 with L digits (1 <= L <= 20) is IntPosBase+L-1 ('a'..'t')
	// followed by its L digits. A value v < 0 whose magnitude has L digits
	// is IntNegBase-(L-1) ('Z'..'G') followed by the nines' complement of
	// the magnitude's digits ('9'-d). So 0 = "a0", 42 = "b42", -1 = "Z8",
	// -10 = "Y89". Longer non-negative numbers are larger, longer negative
	// ones smaller; equal lengths compare digit by digit.
	IntPosBase = 'a'
	IntNegBase = 'Z'

	// Strings and byte strings: the bytes encoded one codeword each,
	// followed by StringEnd. Bytes '0'-'9', 'A'-'Z', 'a'-'z' are their own
	// one-character codeword. Every other byte b is an escape character
	// followed by A[b - start], where the escape character and start are:
	//
	//	0x00..0x2F  '$'  start 0x00
	//	0x3A..0x40  ':'  start 0x3A
	//	0x5B..0x60  '['  start 0x5B
	//	0x7B..0xD1  '{'  start 0x7B
	//	0xD2..0xFF  '|'  start 0xD2
	//
	// Escape characters sort between the one-character codewords exactly
	// where their bytes do, and StringEnd sorts below every codeword, so a
	// string that is a prefix of another sorts first. "" = "\"",
	// "ab" = "ab\"", "a/b" = "a$Vb\"" ('V' is A[0x2F]), "é" (C3 A9) = "{p{U\"".
	StringEnd = '"'

	// FLOAT and DOUBLE: the IEEE 754 bits of the float64 value, sign bit
	// flipped for positive numbers and all bits flipped for negative ones,
	// as 16 lowercase hex digits. -0 is encoded as +0 (SQL: -0 = 0).
	// NaN and infinities are rejected (MySQL has none).

	// DECIMAL: DecimalNeg, DecimalZero or DecimalPos. A positive value
	// 0.d1d2..dn x 10^E (d1 != 0, dn != 0, trailing zeros dropped) is
	// DecimalPos, then E as an integer component, then the digits d1..dn,
	// then DecimalEnd. A negative value is DecimalNeg followed by the
	// mirror of the positive encoding of its magnitude. Zero is DecimalZero
	// alone. 1.50 = "Oa115\"", 0.05 = "OZ85\"" (E = -1).
	DecimalNeg  = 'M'
	DecimalZero = 'N'
	DecimalPos  = 'O'
	DecimalEnd  = '"'

	// DATE: "YYYY-MM-DD" (years 0000..9999). DATETIME and TIMESTAMP:
	// "YYYY-MM-DDThh:mm:ss.ffffff", always six fraction digits. MySQL's
	// zero date is "0000-00-00" ("0000-00-00T00:00:00.000000"), below
	// every other date (ZeroDate); no other date with a zero month or day
	// is encoded.
)

// StringEscapes are the escape characters of the string encoding with the
// first byte each one covers; see StringEnd. Part of the format.
var stringEscapes = [...]struct {
	esc        byte
	start, end int // inclusive byte range
}{
	{'$', 0x00, 0x2F},
	{':', 0x3A, 0x40},
	{'[', 0x5B, 0x60},
	{'{', 0x7B, 0x7B + len(Alphabet) - 1},
	{'|', 0x7B + len(Alphabet), 0xFF},
}

var (
	alphaIndex [256]int8 // position in Alphabet, -1 if not in it
	mirror     [256]byte // Mirror table, 0 for characters not in A
	byteCode   [256][2]byte
	byteCodeN  [256]uint8
	escIndex   [256]int8 // stringEscapes index of an escape character, -1 otherwise
)

func init() {
	if len(Alphabet) != 87 {
		panic("keys: alphabet must have 87 characters")
	}
	for i := range alphaIndex {
		alphaIndex[i] = -1
		escIndex[i] = -1
	}
	for i := 0; i < len(Alphabet); i++ {
		if i > 0 && Alphabet[i] <= Alphabet[i-1] {
			panic("keys: alphabet not sorted")
		}
		alphaIndex[Alphabet[i]] = int8(i)
		mirror[Alphabet[i]] = Alphabet[len(Alphabet)-1-i]
	}
	for i, e := range stringEscapes {
		escIndex[e.esc] = int8(i)
		for b := e.start; b <= e.end; b++ {
			byteCode[b] = [2]byte{e.esc, Alphabet[b-e.start]}
			byteCodeN[b] = 2
		}
	}
	for b := 0; b < 256; b++ {
		if isAlnum(byte(b)) {
			byteCode[b] = [2]byte{byte(b)}
			byteCodeN[b] = 1
		}
		if byteCodeN[b] == 0 {
			panic(fmt.Sprintf("keys: byte %#x has no codeword", b))
		}
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// Mirror returns the character at the mirrored position of the key
// alphabet ('!' <-> '~'), or 0 if c is not in it.
func Mirror(c byte) byte { return mirror[c] }

// InAlphabet reports whether c is a key alphabet character.
func InAlphabet(c byte) bool { return alphaIndex[c] >= 0 }

// Invert mirrors every character of b in place (ascending <-> descending).
func Invert(b []byte) {
	for i, c := range b {
		b[i] = mirror[c]
	}
}

// Valid reports whether s consists of key alphabet characters only.
func Valid(s string) bool {
	for i := 0; i < len(s); i++ {
		if alphaIndex[s[i]] < 0 {
			return false
		}
	}
	return true
}

// PrefixEnd returns the smallest string made of alphabet characters that is
// greater than every string starting with prefix: the exclusive upper bound
// of "all keys with this prefix". It is itself a legal key. ok is false when
// no such bound exists (prefix is empty or all '~'): the range is unbounded
// above.
func PrefixEnd(prefix string) (end string, ok bool) {
	for i := len(prefix) - 1; i >= 0; i-- {
		j := alphaIndex[prefix[i]]
		if j < 0 {
			// Not an alphabet character: the next byte value works, but
			// only if it is a legal key character; fall back to truncation.
			continue
		}
		if int(j) < len(Alphabet)-1 {
			return prefix[:i] + string(Alphabet[j+1]), true
		}
	}
	return "", false
}

func malformed(what string, b []byte) error {
	if len(b) > 24 {
		b = append(b[:24:24], "..."...)
	}
	return fmt.Errorf("%w: %s at %q", ErrMalformed, what, b)
}

// descending runs an ascending decoder on the mirror of b and returns the
// rest of b (not of the mirror).
func descending[T any](b []byte, dec func([]byte) ([]byte, T, error)) ([]byte, T, error) {
	inv := make([]byte, len(b))
	for i, c := range b {
		m := mirror[c]
		if m == 0 {
			m = 0xFF // keeps "not in the alphabet" malformed after mirroring
		}
		inv[i] = m
	}
	rest, v, err := dec(inv)
	if err != nil {
		return b, v, err
	}
	return b[len(b)-len(rest):], v, nil
}

// descend appends with enc and mirrors what enc appended.
func descend(b []byte, enc func([]byte) []byte) []byte {
	n := len(b)
	b = enc(b)
	Invert(b[n:])
	return b
}

// Reserved RowKey characters of the row layout. Part of the format.
const (
	// ContinuationSep follows a row's complete RowKey in the RowKeys of its
	// continuation entities (wide rows): rk + "}" + integer component.
	ContinuationSep = '}'
	// LocalIndexPrefix starts the RowKeys of local secondary-index entities,
	// which share their base row's partition: no row RowKey starts with '~'
	// (only a descending NULL does, and key columns are NOT NULL).
	LocalIndexPrefix = "~"
)
