package extractive

import (
	"sort"
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/textcut"
)

// This file recognises the identifiers a tool call passes: the values that
// name an entity a successor must refer to again, such as a reservation
// code, a user or payment id, an issue number or a commit. They are listed
// in the summary's facts index with the argument and the tool they went to.

// maxIDLen bounds an identifier; longer tokens are data (a token, a hash
// of something large), not a name to refer to again.
const maxIDLen = 64

// idArg is one identifier found in a call's arguments, with the name of
// the innermost argument it was given under.
type idArg struct {
	key, value string
}

// callIDs returns the identifiers in a call's parsed arguments, searched to
// any depth in key order. Arguments that hold prose, code or paths are not
// searched.
func callIDs(args map[string]any) []idArg {
	var out []idArg
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			var buf [16]string
			keys := buf[:0]
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !isProseKey(k) && !isPathKey(k) {
					walk(x[k], k)
				}
			}
		case []any:
			for _, e := range x {
				walk(e, key)
			}
		case string:
			if v := strings.TrimSpace(x); isIdentifier(key, v) {
				out = append(out, idArg{key, v})
			}
		case float64:
			if x >= 1 && x < 1e15 && x == float64(int64(x)) && isIDKey(key) {
				out = append(out, idArg{key, strconv.FormatInt(int64(x), 10)})
			}
		}
	}
	walk(args, "")
	return out
}

// isIdentifier reports whether v, given under the argument key, names an
// entity: a single token (letters, digits and _ . : # @ + -, no spaces or
// slashes, at most maxIDLen bytes) that is not a path, and either mixes
// letters and digits (mia_li_3668, HAT082, gpt-4o, a commit SHA) without
// being a date, a time, a version or a quantity (2024-05-15, v1.2.3,
// 10px, 1h30m); or is a record locator (six upper-case letters or digits:
// HATHAU); or an issue reference (#4588); or any token under an argument
// whose name says it holds one (reservation_id, order, issue_number, sha).
func isIdentifier(key, v string) bool {
	if len(v) < 2 || len(v) > maxIDLen || !isIDToken(v) || isTextPath(v) {
		return false
	}
	letters, digits, upperOrDigit := 0, 0, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case textcut.IsLetter(c):
			letters++
			upperOrDigit = upperOrDigit && c >= 'A' && c <= 'Z'
		default:
			upperOrDigit = false
		}
	}
	switch {
	case len(v) == 6 && upperOrDigit:
		return true // a record locator
	case v[0] == '#':
		return letters == 0 && digits == len(v)-1
	case letters > 0 && digits > 0:
		return !isMeasure(v)
	case isIDKey(key):
		return digits > 0 || letters >= 4 && !isPlainValue(v)
	}
	return false
}

// isIDToken reports whether every byte of v may be part of an identifier.
func isIDToken(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !textcut.IsWordByte(c) && strings.IndexByte(".:#@+-", c) < 0 {
			return false
		}
	}
	return textcut.IsWordByte(v[0]) || v[0] == '#'
}

// isMeasure reports mixed letters and digits that date, time, version or
// measure something rather than name it: 2024-05-15, 2024-05-15T10:00:00Z,
// 10:30am, v1.2.3, 3.11, 10px, 1.5GB, 30s, 1h30m, 4x.
func isMeasure(v string) bool {
	s := strings.TrimPrefix(strings.TrimPrefix(v, "v"), "V")
	// Digits and separators, with at most a letter or two among them
	// (the T and Z of a timestamp, a version's trailing letter).
	letters := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '-', c == ':', c == '+':
		case textcut.IsLetter(c):
			letters++
		default:
			return false
		}
	}
	if s != "" && s[0] >= '0' && s[0] <= '9' && letters <= 2 && strings.ContainsAny(s, ".-:") {
		return true
	}
	// A number followed by a short unit, or runs of number and unit.
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		k := j
		for k < len(s) && textcut.IsLetter(s[k]) {
			k++
		}
		if j == i || k == j || k-j > 3 {
			return false
		}
		i = k
	}
	return true
}

// isIDKey reports an argument name that says its value names an entity:
// id, user_id, reservationId, ids, uuid, sha, commit, issue, pr,
// pull_number, ticket, order, order_number, locator... and not one that
// counts or places something (line_number, page, port, status_code).
func isIDKey(key string) bool {
	var buf [maxWordsOnStack]string
	words := appendToolWords(buf[:0], key)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		switch w {
		case "line", "lines", "col", "column", "page", "count", "limit", "offset", "size", "amount", "total",
			"port", "timeout", "max", "min", "index", "status", "exit", "step", "level", "depth", "width", "height",
			"start", "end", "phone", "zip", "postal", "country", "area":
			return false
		}
	}
	switch words[len(words)-1] {
	case "id", "ids", "uuid", "guid", "sha", "commit", "hash", "issue", "pr", "pull", "ticket", "order",
		"number", "num", "no", "locator", "pnr", "confirmation", "reservation", "booking", "ref":
		return true
	}
	return false
}

// isPlainValue reports tokens that are settings, not names, even under an
// id key: true, false, null, none, all, any.
func isPlainValue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "nil", "none", "all", "any", "default", "latest", "main", "master", "head":
		return true
	}
	return false
}

// isProseKey reports an argument that holds prose or code, whose words
// are not identifiers even when one looks like one.
func isProseKey(key string) bool {
	switch strings.ToLower(key) {
	case "command", "cmd", "code", "script", "commands", "input", "content", "contents", "text", "body",
		"old_str", "new_str", "file_text", "old_string", "new_string", "query", "q", "thought", "thoughts",
		"reasoning", "message", "messages", "description", "title", "summary", "prompt", "pattern", "regex",
		"reason", "note", "notes", "comment", "answer", "final_answer", "expression", "search", "replace",
		"insert", "patch", "diff", "edits", "instructions", "explanation":
		return true
	}
	return false
}
