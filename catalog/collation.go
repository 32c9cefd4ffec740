package catalog

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sqlgw/sqlgw/catalog/keys"
)

// RuneWeigher returns a collation's weight of one rune. Strings compare
// under the collation as their sequences of rune weights, a sequence that
// is a prefix of another first, which is how go-mysql-server compares
// strings (its sql.CollationSorter has this signature).
type RuneWeigher func(r rune) int32

var (
	weighersMu sync.RWMutex
	weighers   = map[string]RuneWeigher{}
)

// RegisterCollation makes text columns with the named case- or
// accent-insensitive collation usable as key and index columns: their key
// component is the weight sequence (keys.EncodeWeightsAscending), so values
// equal under the collation share one key and keys sort in collation order.
// The gateway registers go-mysql-server's collations at start-up, so that
// keys order exactly as the engine compares. Without a registration such
// columns are rejected as key columns with ErrUnsupported. Comparisons on
// them are never pushed down.
//
// The key of a NO PAD "_0900_" collation (utf8mb4_0900_ai_ci) is the
// weight sequence of the whole value. A PAD SPACE collation
// (utf8mb4_general_ci, utf8mb4_unicode_ci, utf8mb3_general_ci, latin1_*,
// ...) compares as if the shorter value were padded with spaces, so 'x' and
// 'X  ' are one value to MySQL: its key is the weight sequence of the value
// without its trailing spaces (keyWeights), so they are one key too, in
// tables of KeyFormatPadSpace (an older table keeps the weights of the
// spaces, Table.KeyFormat). Such a key is exact for equality (two values are
// equal padded exactly when their keys are equal: CollationKeyEqualExact)
// but not for order: it orders 'a' below 'a\t' where padding orders it above
// (CollationKeyExact is false: the planner widens ranges and the engine
// filters). Registering a "_bin" collation or binary has no effect: those
// are keyed by their bytes (keys.EncodeStringAscending,
// keys.EncodeStringPadAscending), a persisted format.
func RegisterCollation(name string, w RuneWeigher) {
	name = strings.ToLower(name)
	if w == nil || name == CollationBinary || strings.HasSuffix(name, "_bin") {
		return
	}
	weighersMu.Lock()
	weighers[name] = w
	weighersMu.Unlock()
}

// weigher returns the registered weigher of t's collation, if t is text
// with a registered collation that is not binary.
func (t Type) weigher() RuneWeigher {
	if !t.Kind.IsText() || t.BinaryCollation() || t.padBin() {
		return nil
	}
	weighersMu.RLock()
	defer weighersMu.RUnlock()
	return weighers[strings.ToLower(t.collation())]
}

// weights returns the weight sequence of s.
func (w RuneWeigher) weights(s string) []int32 {
	out := make([]int32, 0, len(s))
	for _, r := range s {
		out = append(out, w(r))
	}
	return out
}

// PadSpace reports whether the named text collation is PAD SPACE in MySQL
// 8.0 (INFORMATION_SCHEMA.COLLATIONS.PAD_ATTRIBUTE): every collation but
// binary and the "_0900_" ones, which are NO PAD.
func PadSpace(collation string) bool {
	c := strings.ToLower(collation)
	return c != "" && c != CollationBinary && !strings.Contains(c, "_0900_")
}

// padSpace reports whether t is text with a PAD SPACE collation.
func (t Type) padSpace() bool {
	return t.Kind.IsText() && PadSpace(t.collation())
}

// padKey reports whether t's weight keys leave out trailing spaces: a PAD
// SPACE collation in a table of KeyFormatPadSpace or later.
func (t Type) padKey() bool {
	return !t.unpaddedKey && t.padSpace()
}

// keyWeights returns the weights t's key holds for s: all of them under a
// NO PAD collation (and in a table of KeyFormatUnpadded); under a PAD SPACE
// one, those of s without its trailing spaces (U+0020, the padding), so
// that 'x' and 'X  ' share a key. Only spaces are trimmed, as the engine's
// PAD SPACE comparison trims them (sqlgw/engine/padspace.go): keys and
// comparisons agree on equality.
func (t Type) keyWeights(w RuneWeigher, s string) []int32 {
	if t.padKey() {
		s = keys.TrimPad(s)
	}
	return w.weights(s)
}

// KeyComponent is an already encoded ascending key component of a text key
// column (what CollationKey returns, or a prefix of one the planner
// computed from it). KeyColumn.Append and the key-encoding functions append
// it verbatim (complemented for a DESC column) instead of encoding a value:
// the planner reasons about collated columns in the key space, where byte
// order is the collation's order, and hands such components back for key
// bounds.
type KeyComponent string

// CollationKeyed reports whether t is text keyed by something other than
// its bytes: a registered collation's weights, or the PAD SPACE encoding of
// a "_bin" collation. For such columns CollationKey maps values into the
// key space.
func (t Type) CollationKeyed() bool {
	return t.Kind.IsText() && !t.BinaryCollation() && (t.padBin() || t.weigher() != nil)
}

// CollationKeyExact reports whether the key components of t compare
// exactly as the values compare, in order and equality: true for NO PAD
// weight-keyed collations (the very weight sequences the keys hold); false
// for PAD SPACE keys, weighted or "_bin": without trailing spaces they
// order 'a' below 'a\t', where padding orders 'a\t' below 'a', and with
// them (KeyFormatUnpadded) they order 'a' below 'a '. Equality alone:
// CollationKeyEqualExact.
func (t Type) CollationKeyExact() bool {
	return t.weigher() != nil && !t.padSpace()
}

// CollationKeyEqualExact reports whether two values of t compare equal
// exactly when their key components are equal: true for NO PAD weight keys,
// for PAD SPACE weight keys without trailing spaces (the engine's PAD SPACE
// comparison trims exactly those, sqlgw/engine/padspace.go) and for PAD
// SPACE "_bin" keys (the bytes without trailing spaces). Equality, IN and
// unique checks on such keys are answered by the keys; only ranges need
// CollationKeyExact. False for the unpadded PAD SPACE weight keys of a
// table of KeyFormatUnpadded, where 'a' and 'a ' are two keys of one
// value: the planner reads an equality there as the range of its prefix
// (CollationKeyPrefix) and the engine filters.
func (t Type) CollationKeyEqualExact() bool {
	return t.weigher() != nil && (t.padKey() || !t.padSpace()) || t.padBin()
}

// CollationKey returns the ascending key component of s for a
// CollationKeyed type; false if s cannot be a key (invalid UTF-8).
func (t Type) CollationKey(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	if w := t.weigher(); w != nil {
		return string(keys.EncodeWeightsAscending(nil, t.keyWeights(w, s))), true
	}
	if t.padBin() {
		return string(keys.EncodeStringPadAscending(nil, s)), true
	}
	return string(keys.EncodeStringAscending(nil, s)), true
}

// CollationKeyPrefix returns a prefix P of the key space such that the key
// component of every string that starts with s starts with P, every string
// the engine orders at or above s has a component >= P, and every string
// it orders at or below s has a component below keys.PrefixEnd(P): the
// bound of a widened range or of LIKE 's%'. For weights it is the weights
// of the longest valid UTF-8 prefix of s (under a PAD SPACE collation, up
// to its first rune that weighs at most a space, where padded and unpadded
// orders part); for PAD SPACE "_bin" keys, the encoding of s up to its
// first byte at or below ' '.
func (t Type) CollationKeyPrefix(s string) string {
	if w := t.weigher(); w != nil {
		i, pad, sp := 0, t.padSpace(), w(' ')
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || pad && w(r) <= sp {
				break
			}
			i += n
		}
		enc := keys.EncodeWeightsAscending(nil, w.weights(s[:i]))
		return string(enc[:len(enc)-1]) // without keys.WeightsEnd
	}
	if t.padBin() {
		if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' }); i >= 0 {
			s = s[:i]
		}
		if i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError }); i >= 0 {
			s = s[:i]
		}
		enc := keys.EncodeStringPadAscending(nil, s)
		return string(enc[:len(enc)-1]) // without keys.PadEnd
	}
	enc := keys.EncodeStringAscending(nil, strings.ToValidUTF8(s, ""))
	return string(enc[:len(enc)-1])
}
