package catalog

import (
	"strings"
	"sync"
)

// RuneWeigher returns a collation's weight of one rune. Strings compare
// under the collation as their sequences of rune weights, a sequence that
// is a prefix of another first (NO PAD), which is how go-mysql-server
// compares strings (its sql.CollationSorter has this signature).
type RuneWeigher func(r rune) int32

var (
	weighersMu sync.RWMutex
	weighers   = map[string]RuneWeigher{}
)

// RegisterCollation makes text columns with the named NO PAD collation
// (utf8mb4_0900_ai_ci and the other "_0900_" collations) usable as key and
// index columns: their key component is the weight sequence
// (keys.EncodeWeightsAscending), so values equal under the collation share
// one key and keys sort in collation order. The gateway registers
// go-mysql-server's collations at start-up, so that keys order exactly as
// the engine compares. Without a registration such columns are rejected as
// key columns with ErrUnsupported. Comparisons on them are never pushed down.
// Registering a PAD SPACE collation has no effect.
func RegisterCollation(name string, w RuneWeigher) {
	if w == nil || !strings.Contains(strings.ToLower(name), "_0900_") {
		return
	}
	weighersMu.Lock()
	weighers[strings.ToLower(name)] = w
	weighersMu.Unlock()
}

// weigher returns the registered weigher of t's collation, if t is text
// with a non-binary registered collation.
func (t Type) weigher() RuneWeigher {
	if !t.Kind.IsText() || t.BinaryCollation() {
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
