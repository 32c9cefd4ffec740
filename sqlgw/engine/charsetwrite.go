package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/vitess/go/mysql"
)

// Strings a column's character set cannot hold
//
// A text column's values are stored as UTF-8 whatever its character set,
// and read back through the set's encoder. go-mysql-server wrote a string
// into a latin1 (or utf8mb3, ascii, ...) column without checking that the
// set holds its characters: INSERT of '日' into a latin1 column succeeded,
// in strict mode too, and every later read of the row failed with a
// recovered panic (its encoder slices past the end of a character it does
// not know). MySQL checks the value when it writes it: strict mode's 1366
// "Incorrect string value: '\xE6\x97\xA5' for column 'c' at row 1", and
// in non-strict mode each character the set lacks stored as '?' with that
// warning. charsetValue does the same for every write that goes through
// writeValue (INSERT, UPDATE, INSERT ... SELECT, direct and general paths).

// charsetValue is v, a value written into col at row row, as col's
// character set can hold it (see above).
func charsetValue(ctx *sql.Context, col *sql.Column, v any, row int, strict bool) (any, error) {
	st, ok := col.Type.(sql.StringType)
	if !ok {
		return v, nil
	}
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	cs := st.Collation().CharacterSet()
	if cs == sql.CharacterSet_utf8mb4 || cs == sql.CharacterSet_binary {
		return v, nil
	}
	enc := cs.Encoder()
	bad := unencodable(enc, s)
	if bad < 0 {
		return v, nil
	}
	msg := fmt.Sprintf("Incorrect string value: '%s' for column '%s' at row %d", printableBytes(s[bad:]), col.Name, row)
	if strict {
		return nil, mysql.NewSQLError(mysql.ERTruncatedWrongValueForField, "HY000", "%s", msg)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysql.ERTruncatedWrongValueForField, Message: msg})
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:bad])
	rest := s[bad:]
	for len(rest) > 0 {
		_, n := utf8.DecodeRuneInString(rest)
		if encodable(enc, rest[:n]) {
			b.WriteString(rest[:n])
		} else {
			b.WriteByte('?')
		}
		rest = rest[n:]
	}
	return b.String(), nil
}

// unencodable returns the index of the first character of s that enc
// cannot encode (or that is not UTF-8), -1 if there is none.
func unencodable(enc encodings.Encoder, s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !encodable(enc, s[i:i+1]) {
				return i
			}
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		if !encodable(enc, s[i:i+n]) {
			return i
		}
		i += n
	}
	return -1
}

// encodable reports whether enc encodes the one character ch. An invalid
// UTF-8 byte is not encodable.
func encodable(enc encodings.Encoder, ch string) bool {
	if r, n := utf8.DecodeRuneInString(ch); r == utf8.RuneError && n <= 1 {
		return false
	}
	_, ok := enc.EncodeRune(encodings.StringToBytes(ch))
	return ok
}

// printableBytes is MySQL's text of the bytes from an incorrect string
// value on (convert_to_printable): at most 6 bytes, printable ASCII as it
// is and every other byte as \xHH, then "..." if more follow.
func printableBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && i < 6; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\x%02X", c)
		}
	}
	if len(s) > 6 {
		b.WriteString("...")
	}
	return b.String()
}
