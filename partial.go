package compact

import (
	"errors"
	"strconv"
	"strings"
)

// defaultKeepExchanges is how many recent exchanges "/compress here" keeps
// verbatim when no number is given: the current exchange and the one
// before it, as in Hermes' "/compress here".
const defaultKeepExchanges = 2

// maxKeepExchanges bounds the number given to "/compress here N". Past it
// the command would keep nearly everything; a larger number is clamped.
const maxKeepExchanges = 100

// CompressCommand is what the text after "/compress" asks for: a full
// compaction (optionally weighted toward a focus topic), or a partial one
// that keeps the last Keep exchanges verbatim and summarises the rest.
type CompressCommand struct {
	// Partial is set for "here" and its synonyms.
	Partial bool
	// Keep is how many recent exchanges a partial compaction keeps, in
	// [1, 100]; zero for a full compaction.
	Keep int
	// Focus is a topic the summary should weight (see WithFocus), or "".
	Focus string
}

// ParseCompressArgs reads the text a person typed after "/compress".
// Keywords are case-insensitive; words are separated by any white space.
//
//	""                         full compaction
//	"here [N]"                 partial: keep the last N exchanges (default 2)
//	"up to here [N]"           the same
//	"--keep N", "--keep=N"     the same
//	"-k N", "-k=N"             the same
//	anything else              full compaction, the text is its focus topic
//
// N is clamped to [1, 100], so "here 0" keeps one exchange and
// "here 500" keeps a hundred. A word where N would be that is not a number
// leaves N at its default of 2 and, with the words after it, becomes
// the focus of the partial compaction: "here auth flow" keeps two exchanges
// and weights the summary toward "auth flow", and "here 3 auth flow" keeps
// three. A flag without a value ("--keep", "--keep=") or with a malformed
// one ("--keep=x") keeps the default. Partial forms are recognised only at
// the start; "fix the bug here" is a focus topic.
func ParseCompressArgs(args string) CompressCommand {
	words := strings.Fields(args)
	rest, ok := partialKeyword(words)
	if !ok {
		return CompressCommand{Focus: strings.Join(words, " ")}
	}
	cmd := CompressCommand{Partial: true, Keep: defaultKeepExchanges}
	if attached, isFlag := flagValue(words[0]); isFlag && attached != nil {
		// --keep=N: the value is attached, never a focus word.
		if n, ok := parseKeep(*attached); ok {
			cmd.Keep = n
		}
	} else if len(rest) > 0 {
		if n, ok := parseKeep(rest[0]); ok {
			cmd.Keep = n
			rest = rest[1:]
		}
	}
	cmd.Focus = strings.Join(rest, " ")
	return cmd
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

// parseKeep reads N, clamped to [1, maxKeepExchanges]. ok is false when s
// is not a decimal integer.
func parseKeep(s string) (int, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	// Out of range, ParseInt returns the bound with the right sign.
	return int(min(max(n, 1), maxKeepExchanges)), true
}
