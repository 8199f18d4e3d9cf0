// Package cmdargs reads what a person typed after "/compress": a full
// compaction with a focus topic, or a partial one that keeps the last N
// exchanges. compact.ParseCompressArgs documents the forms; this package
// holds the parsing, and uses the standard library only.
package cmdargs

import (
	"errors"
	"strconv"
	"strings"
)

// DefaultKeep is how many recent exchanges "/compress here" keeps
// verbatim when no number is given: the current exchange and the one
// before it, as in Hermes' "/compress here".
const DefaultKeep = 2

// MaxKeep bounds the number given to "/compress here N". Past it the
// command would keep nearly everything; a larger number is clamped.
const MaxKeep = 100

// Parse reads args, the text after "/compress". partial is set for "here"
// and its synonyms, with keep the number of exchanges to keep (DefaultKeep
// unless one is given), and focus the words that are neither; a full
// compaction has keep 0 and every word as its focus.
func Parse(args string) (partial bool, keep int, focus string) {
	words := strings.Fields(args)
	rest, ok := partialKeyword(words)
	if !ok {
		return false, 0, strings.Join(words, " ")
	}
	keep = DefaultKeep
	if attached, isFlag := flagValue(words[0]); isFlag && attached != nil {
		// --keep=N: the value is attached, never a focus word.
		if n, ok := parseKeep(*attached); ok {
			keep = n
		}
	} else if len(rest) > 0 {
		if n, ok := parseKeep(rest[0]); ok {
			keep = n
			rest = rest[1:]
		}
	}
	return true, keep, strings.Join(rest, " ")
}

// partialKeyword reports whether words open with a partial form, and
// returns the words after it.
func partialKeyword(words []string) ([]string, bool) {
	switch {
	case len(words) == 0:
		return nil, false
	case strings.EqualFold(words[0], "here"):
		return words[1:], true
	case len(words) >= 3 && strings.EqualFold(words[0], "up") && strings.EqualFold(words[1], "to") &&
		strings.EqualFold(words[2], "here"):
		return words[3:], true
	}
	if _, isFlag := flagValue(words[0]); isFlag {
		return words[1:], true
	}
	return nil, false
}

// flagValue recognises --keep and -k. attached is the text after "=", nil
// when the value (if any) is the next word.
func flagValue(word string) (attached *string, isFlag bool) {
	name, value, hasValue := strings.Cut(word, "=")
	if !strings.EqualFold(name, "--keep") && !strings.EqualFold(name, "-k") {
		return nil, false
	}
	if hasValue {
		return &value, true
	}
	return nil, true
}

// parseKeep reads N, clamped to [1, MaxKeep]. ok is false when s
// is not a decimal integer.
func parseKeep(s string) (int, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	// Out of range, ParseInt returns the bound with the right sign.
	return int(min(max(n, 1), MaxKeep)), true
}
