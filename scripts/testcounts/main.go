// Command testcounts reads `go test -json` output on stdin and prints, per
// top-level test, how many leaf subtests passed, were skipped and failed, as
// a markdown table (for docs/enginetest.md). With -failed it prints instead
// the full names of the failing leaf tests, one a line, in the form
// sqlgw/enginetest/testdata/skips.txt takes, each followed by the first line
// of its failure message as a comment.
//
//	go test -tags enginetest -json ./sqlgw/enginetest/ | go run ./scripts/testcounts
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action string
	Test   string
	Output string
}

type result struct {
	action   string // pass, fail, skip
	children int
	output   []string
}

func main() {
	failed := flag.Bool("failed", false, "print failing leaf test names instead of counts")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *failed); err != nil {
		fmt.Fprintln(os.Stderr, "testcounts:", err)
		os.Exit(1)
	}
}

func run(r io.Reader, w io.Writer, listFailed bool) error {
	tests := map[string]*result{}
	get := func(name string) *result {
		res := tests[name]
		if res == nil {
			res = &result{}
			tests[name] = res
		}
		return res
	}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 16<<20), 16<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Test == "" {
			continue
		}
		res := get(ev.Test)
		switch ev.Action {
		case "run":
			order = append(order, ev.Test)
			if i := strings.LastIndex(ev.Test, "/"); i > 0 {
				// A name may contain '/', so count the child on every prefix
				// that is a known test; the direct parent is the longest.
				for p := ev.Test[:i]; ; {
					if parent, ok := tests[p]; ok {
						parent.children++
						break
					}
					j := strings.LastIndex(p, "/")
					if j <= 0 {
						break
					}
					p = p[:j]
				}
			}
		case "pass", "fail", "skip":
			res.action = ev.Action
		case "output":
			if len(res.output) < 50 {
				res.output = append(res.output, ev.Output)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}

	type counts struct{ pass, skip, fail int }
	byTop := map[string]*counts{}
	var tops []string
	for _, name := range order {
		res := tests[name]
		top, _, _ := strings.Cut(name, "/")
		c := byTop[top]
		if c == nil {
			c = &counts{}
			byTop[top] = c
			tops = append(tops, top)
		}
		if res.children > 0 && res.action != "skip" {
			continue // not a leaf
		}
		if res.children > 0 && name == top {
			continue
		}
		switch res.action {
		case "pass":
			c.pass++
		case "skip":
			c.skip++
		case "fail", "":
			// "" is a test that never finished (the binary panicked).
			c.fail++
			if listFailed {
				fmt.Fprintf(w, "%s\n#   %s\n", name, firstError(res.output))
			}
		}
	}
	if listFailed {
		return nil
	}
	sort.Strings(tops)
	var total counts
	fmt.Fprintln(w, "| suite | passed | skipped | failed |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, top := range tops {
		c := byTop[top]
		fmt.Fprintf(w, "| %s | %d | %d | %d |\n", top, c.pass, c.skip, c.fail)
		total.pass += c.pass
		total.skip += c.skip
		total.fail += c.fail
	}
	fmt.Fprintf(w, "| **total** | %d | %d | %d |\n", total.pass, total.skip, total.fail)
	return nil
}

// firstError picks the most telling line of a failing test's output.
func firstError(lines []string) string {
	for _, key := range []string{"Error:", "panic:", "Error Trace:"} {
		for i, l := range lines {
			if strings.Contains(l, key) {
				s := strings.TrimSpace(l)
				// testify puts the message on the next line after
				// "Received unexpected error:" and the like.
				if key == "Error:" && strings.HasSuffix(s, ":") && i+1 < len(lines) {
					s += " " + strings.TrimSpace(lines[i+1])
				}
				for _, m := range lines[i:] {
					if m := strings.TrimSpace(m); strings.HasPrefix(m, "Messages:") {
						s += " " + m
						break
					}
				}
				return truncate(s, 300)
			}
		}
	}
	for _, l := range lines {
		if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "===") && !strings.HasPrefix(s, "---") {
			return truncate(s, 300)
		}
	}
	return "(no output)"
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
