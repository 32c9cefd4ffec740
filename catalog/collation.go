package catalog

import (
	"strings"
	"sync"
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
// This holds for the NO PAD "_0900_" collations (utf8mb4_0900_ai_ci) and for
// the PAD SPACE ones (utf8mb4_general_ci, utf8mb4_unicode_ci,
// utf8mb3_general_ci, ...) alike: go-mysql-server compares both as plain
// weight sequences, without padding ('a' < 'a ' and 'a' < 'a\t' under
// utf8mb4_general_ci), so their keys do not pad either; a key that ignored
// trailing spaces would refuse a row the engine holds distinct. Registering
// a "_bin" collation or binary has no effect: those are keyed by their bytes
// (keys.EncodeStringAscending, keys.EncodeStringPadAscending), a persisted
// format.
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
