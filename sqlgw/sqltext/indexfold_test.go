package sqltext

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIndexFold compares indexFold with a plain case-folding search over
// random texts dense in the word's letters, both cases.
func TestIndexFold(t *testing.T) {
	naive := func(s, w string) int { return strings.Index(strings.ToLower(s), w) }
	r := rand.New(rand.NewPCG(7, 7))
	alphabet := "kKeEyYiInNdDxX -'(),0"
	for n := range 3000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		for _, w := range []string{"key", "index", "kill", "k"} {
			if got, want := IndexFold(s, w), naive(s, w); got != want {
				t.Fatalf("case %d: IndexFold(%q, %q) = %d, want %d", n, s, w, got, want)
			}
		}
	}
	for _, c := range []struct {
		s, w string
		want int
	}{{"", "key", -1}, {"ke", "key", -1}, {"KEY", "key", 0}, {"xkEy", "key", 1}, {"kkkKEY", "key", 3}} {
		if got := IndexFold(c.s, c.w); got != c.want {
			t.Errorf("IndexFold(%q, %q) = %d, want %d", c.s, c.w, got, c.want)
		}
	}
}

// BenchmarkMayHaveHintsBulk: a half-megabyte multi-row INSERT (sysbench's
// prepare) without hints.
func BenchmarkMayHaveHintsBulk(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("INSERT INTO sbtest1(k, c, pad) VALUES ")
	for i := range 2700 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("(50123, '68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441', '22195207048-70116052123-74140395089-76317954521-98694025897')")
	}
	q := sb.String()
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		if MayHaveHints(q) {
			b.Fatal("hints")
		}
	}
}
