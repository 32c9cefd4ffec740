//go:build enginetest

package enginetest

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var noSkip = flag.Bool("noskip", false, "run every test, ignoring testdata/skips.txt except the tests that crash the test binary")

// crashReason starts the reasons of entries that -noskip keeps: a panic in a
// test would end the whole run.
const crashReason = "crashes the test binary"

const skipsFile = "testdata/skips.txt"

// skipList is testdata/skips.txt: full `go test` names of subtests that sqlgw
// does not pass yet, each under a reason.
//
// Format: a line "reason: TEXT" starts a group; every following non-blank
// line that does not start with '#' is one test name (as go test prints it,
// "#NN" duplicate suffixes allowed) skipped for TEXT.
type skipList struct {
	byTop map[string][]skipEntry // top-level test name -> entries

	mu   sync.Mutex
	used map[string]int // reason -> skips taken, for the summary
}

type skipEntry struct {
	name   string // without the top-level test
	base   string // name without a trailing "#NN" (go test's duplicate-name suffix)
	reason string
}

var dupSuffix = regexp.MustCompile(`#[0-9]+$`)

// loadSkips reads the skip list; with onlyCrashes it keeps just the entries
// whose reason starts with crashReason.
func loadSkips(path string, onlyCrashes bool) (*skipList, error) {
	l := &skipList{byTop: map[string][]skipEntry{}, used: map[string]int{}}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	reason := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "reason: "):
			reason = strings.TrimSpace(strings.TrimPrefix(line, "reason: "))
		default:
			if reason == "" {
				return nil, fmt.Errorf("%s:%d: entry before any \"reason:\" line", path, n)
			}
			if onlyCrashes && !strings.HasPrefix(reason, crashReason) {
				continue
			}
			top, rest, ok := strings.Cut(line, "/")
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q is not TopLevelTest/subtest", path, n, line)
			}
			l.byTop[top] = append(l.byTop[top], skipEntry{name: "/" + rest, base: "/" + dupSuffix.ReplaceAllString(rest, ""), reason: reason})
		}
	}
	return l, sc.Err()
}

// match reports the reason to skip q (a query, a script name or a statement)
// in top-level test top, or "" to run it. q matches an entry whose name
// (with or without a "#NN" duplicate suffix: a name may also end in "#2" of
// its own) ends with "/" followed by q as go test spells subtest names. The
// harness is not told where in the test tree q is, so an entry skips its
// name wherever it occurs in the top-level test.
func (l *skipList) match(top, q string) string {
	if l == nil {
		return ""
	}
	suffix := "/" + rewrite(q)
	for _, e := range l.byTop[top] {
		if strings.HasSuffix(e.name, suffix) || strings.HasSuffix(e.base, suffix) {
			l.mu.Lock()
			l.used[e.reason]++
			l.mu.Unlock()
			return e.reason
		}
	}
	return ""
}

// summary lists how many skips each reason caused.
func (l *skipList) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	reasons := make([]string, 0, len(l.used))
	for r := range l.used {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	var b strings.Builder
	for _, r := range reasons {
		fmt.Fprintf(&b, "%5d skipped: %s\n", l.used[r], r)
	}
	return b.String()
}

// rewrite is how package testing turns a t.Run name into a test name
// (testing/match.go): white space becomes '_', unprintable runes are escaped.
func rewrite(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case isSpace(r):
			b = append(b, '_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b = append(b, q[1:len(q)-1]...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(b)
}

// isSpace is testing's isSpace (not unicode.IsSpace).
func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
	} else {
		if r <= 0x200a {
			return true
		}
		switch r {
		case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
			return true
		}
	}
	return false
}

func TestRewriteMatchesTesting(t *testing.T) {
	for _, name := range []string{"select * from t where a = 'x y'", "tab\there", "new\nline", "é ü", "a/b c"} {
		t.Run(name, func(t *testing.T) {
			want := rewrite(name)
			if got := t.Name()[len("TestRewriteMatchesTesting/"):]; got != want {
				t.Fatalf("testing named %q, rewrite gives %q", got, want)
			}
		})
	}
}
