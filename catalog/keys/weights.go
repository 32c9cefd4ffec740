package keys

// Collation weights. A text key column with a case- or accent-insensitive
// NO PAD collation is keyed by the collation's weight of each rune, so
// that values equal under the collation ('a', 'A') share one key and keys
// sort in collation order: one integer component per rune weight (see
// IntPosBase), then WeightsEnd, which sorts below every integer component,
// so a weight sequence that is a prefix of another sorts first. Part of the
// format: must not change. The text itself cannot be recovered from its
// weights; the row's property holds it.
const WeightsEnd = '"'

// EncodeWeightsAscending appends the weight component of a rune-weight
// sequence.
func EncodeWeightsAscending(b []byte, weights []int32) []byte {
	for _, w := range weights {
		b = EncodeIntAscending(b, int64(w))
	}
	return append(b, WeightsEnd)
}

// EncodeWeightsDescending appends the descending weight component.
func EncodeWeightsDescending(b []byte, weights []int32) []byte {
	return descend(b, func(b []byte) []byte { return EncodeWeightsAscending(b, weights) })
}

// DecodeWeightsAscending decodes a weight component.
func DecodeWeightsAscending(b []byte) ([]byte, []int32, error) {
	out := []int32{}
	rest := b
	for {
		if len(rest) == 0 {
			return b, nil, malformed("unterminated weights", b)
		}
		if rest[0] == WeightsEnd {
			return rest[1:], out, nil
		}
		r, w, err := DecodeIntAscending(rest)
		if err != nil {
			return b, nil, err
		}
		if w != int64(int32(w)) {
			return b, nil, malformed("weight out of range", b)
		}
		out = append(out, int32(w))
		rest = r
	}
}

// DecodeWeightsDescending decodes a descending weight component.
func DecodeWeightsDescending(b []byte) ([]byte, []int32, error) {
	return descending(b, DecodeWeightsAscending)
}
