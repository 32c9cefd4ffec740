// Package sqltext holds small helpers over statement text shared by the
// engine, the error mapping and the connection handler. It imports only
// the standard library.
package sqltext

import "strings"

// LeadingWords returns up to n leading words of query, lowercased, after
// blanks, parentheses and comments.
func LeadingWords(q string, n int) []string {
	var words []string
	for len(words) < n {
		q = strings.TrimLeft(q, " \t\r\n(")
		switch {
		case strings.HasPrefix(q, "/*"):
			end := strings.Index(q, "*/")
			if end < 0 {
				return words
			}
			q = q[end+2:]
			continue
		case strings.HasPrefix(q, "#"), strings.HasPrefix(q, "-- "):
			end := strings.IndexByte(q, '\n')
			if end < 0 {
				return words
			}
			q = q[end+1:]
			continue
		}
		end := strings.IndexFunc(q, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
		})
		if end < 0 {
			end = len(q)
		}
		if end == 0 {
			return words
		}
		words = append(words, strings.ToLower(q[:end]))
		q = q[end:]
	}
	return words
}
