package catalog

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/catalog golden files from the current output")

// goldenTypes names the column types of testdata/catalog/keys.golden.
var goldenTypes = map[string]Type{
	"bigint":                           {Kind: KindInt64},
	"bigint unsigned":                  {Kind: KindInt64, Unsigned: true},
	"tinyint":                          {Kind: KindInt8},
	"decimal(65,30)":                   {Kind: KindDecimal, Precision: 65, Scale: 30},
	"decimal(10,2)":                    {Kind: KindDecimal, Precision: 10, Scale: 2},
	"double":                           {Kind: KindDouble},
	"varchar(255)":                     {Kind: KindVarchar, Length: 255},
	"char(10)":                         {Kind: KindChar, Length: 10},
	"varchar(255) collate utf8mb4_bin": {Kind: KindVarchar, Length: 255, Collation: "utf8mb4_bin"},
	"varbinary(255)":                   {Kind: KindVarbinary, Length: 255},
	"date":                             {Kind: KindDate},
	"datetime(6)":                      {Kind: KindDatetime, FSP: 6},
	"timestamp":                        {Kind: KindTimestamp},
	"time(6)":                          {Kind: KindTime, FSP: 6},
	"year":                             {Kind: KindYear},
	"enum('a','b','c')":                {Kind: KindEnum, Values: []string{"a", "b", "c"}},
	"set('a','b','c')":                 {Kind: KindSet, Values: []string{"a", "b", "c"}},
	"bit(64)":                          {Kind: KindBit, Length: 64},
}

// parseGoldenValue parses a value as written in the golden file: numbers
// and dates as in SQL, strings Go-quoted, byte strings as x'hex', TIME as
// [-]hhh:mm:ss.ffffff.
func parseGoldenValue(t Type, s string) (Datum, error) {
	switch t.Kind {
	case KindInt8, KindInt64, KindYear:
		if t.Unsigned {
			return strconv.ParseUint(s, 10, 64)
		}
		return strconv.ParseInt(s, 10, 64)
	case KindEnum, KindSet, KindBit:
		return strconv.ParseUint(s, 0, 64)
	case KindDecimal:
		return decimal.NewFromString(s)
	case KindDouble:
		return strconv.ParseFloat(s, 64)
	case KindVarchar, KindChar:
		return strconv.Unquote(s)
	case KindVarbinary:
		if !strings.HasPrefix(s, "x'") || !strings.HasSuffix(s, "'") {
			return nil, fmt.Errorf("byte string %q is not x'...'", s)
		}
		return hex.DecodeString(s[2 : len(s)-1])
	case KindDate:
		return time.Parse("2006-01-02", s)
	case KindDatetime, KindTimestamp:
		return time.Parse("2006-01-02 15:04:05.999999", s)
	case KindTime:
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		var h, m int64
		var sec float64
		if _, err := fmt.Sscanf(s, "%d:%d:%f", &h, &m, &sec); err != nil {
			return nil, err
		}
		us := (h*3600+m*60)*1_000_000 + int64(sec*1_000_000+0.5)
		if neg {
			us = -us
		}
		return us, nil
	}
	return nil, fmt.Errorf("no golden syntax for %s", t)
}

// TestKeysGolden checks the exact key encodings of testdata/catalog/keys.golden
// (one "type<TAB>asc|desc<TAB>value<TAB>encoding" per line), and that each
// decodes back to its value. Run with -rewrite to regenerate the encodings
// after a deliberate change, and review the diff: the format is persisted.
func TestKeysGolden(t *testing.T) {
	const path = "../testdata/catalog/keys.golden"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			out.WriteString(text + "\n")
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 4 {
			t.Fatalf("%s:%d: want 4 tab-separated fields, got %d", path, line, len(fields))
		}
		typ, ok := goldenTypes[fields[0]]
		if !ok {
			t.Fatalf("%s:%d: unknown type %q", path, line, fields[0])
		}
		desc := fields[1] == "desc"
		d, err := parseGoldenValue(typ, fields[2])
		if err != nil {
			t.Fatalf("%s:%d: value %q: %v", path, line, fields[2], err)
		}
		enc, err := typ.appendKey(nil, d, desc)
		if err != nil {
			t.Fatalf("%s:%d: encoding: %v", path, line, err)
		}
		fmt.Fprintf(&out, "%s\t%s\t%s\t%s\n", fields[0], fields[1], fields[2], enc)
		if !*rewrite && string(enc) != fields[3] {
			t.Errorf("%s:%d: %s %s %s encodes as %s, golden %s", path, line, fields[0], fields[1], fields[2], enc, fields[3])
		}
		rest, back, err := typ.decodeKey(enc, desc)
		if err != nil || len(rest) != 0 {
			t.Errorf("%s:%d: decoding %s: %v (rest %q)", path, line, enc, err, rest)
			continue
		}
		if x, ok := d.(decimal.Decimal); ok {
			d = rescale(x, typ.Scale)
		}
		if x, ok := d.(string); ok && typ.padBin() {
			d = strings.TrimRight(x, " ")
		}
		if !datumEqual(back, d) {
			t.Errorf("%s:%d: %s decodes to %v, want %v", path, line, enc, back, d)
		}
	}
	f.Close()
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
