package msg

import (
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/textcut"
)

// CarriedHeader opens the section of a summary message that carries recent
// real user messages verbatim, after the summary's body. Each entry states
// its length in bytes, so the section parses back exactly whatever the
// messages contain.
const CarriedHeader = "[Earlier user messages, verbatim, oldest first]"

// defusedCarriedHeader replaces CarriedHeader inside a summary's own body.
const defusedCarriedHeader = "(earlier user messages, verbatim, oldest first)"

// SummaryText builds the text of a summary message: the prefix, the body
// and, when there are any, the carried user messages.
func SummaryText(body string, carried []string) string {
	body = strings.ReplaceAll(strings.TrimSpace(StripSummaryPrefix(body)), CarriedHeader, defusedCarriedHeader)
	var b strings.Builder
	b.WriteString(PrefixSummary(body))
	if len(carried) > 0 {
		b.WriteString("\n\n")
		b.WriteString(CarriedHeader)
		for _, t := range carried {
			// The line before each: "[user message, 12 bytes]".
			b.WriteString(carriedOpen + strconv.Itoa(len(t)) + " " + english.Noun(len(t), "byte") + carriedClose)
			b.WriteString(t)
		}
	}
	return b.String()
}

// SplitCarried separates a summary body (prefix already stripped) from the
// user messages carried after it. A section that does not parse is left in
// the body, so nothing is lost.
func SplitCarried(summary string) (body string, carried []string) {
	i := strings.Index(summary, CarriedHeader)
	if i < 0 {
		return summary, nil
	}
	carried, end := parseCarried(summary[i+len(CarriedHeader):])
	if end < 0 || strings.TrimSpace(summary[i+len(CarriedHeader)+end:]) != "" {
		return summary, nil
	}
	return strings.TrimSpace(summary[:i]), carried
}

// The line before each carried message opens with carriedOpen and closes
// with carriedClose: "\n[user message, 12 bytes]\n".
const carriedOpen, carriedClose = "\n[user message, ", "]\n"

// parseCarried reads carried entries from the start of s and returns them
// with the offset just past the last one; end is -1 when s does not start
// with a well-formed entry list. An entry's length reads "1 byte" or, as
// summaries written before the singular did, "1 bytes".
func parseCarried(s string) (carried []string, end int) {
	for end < len(s) && strings.HasPrefix(s[end:], carriedOpen) {
		rest := s[end+len(carriedOpen):]
		j := strings.Index(rest, carriedClose)
		if j < 0 {
			return nil, -1
		}
		num, unit, _ := strings.Cut(rest[:j], " ")
		n, err := strconv.Atoi(num)
		start := end + len(carriedOpen) + j + len(carriedClose)
		if err != nil || unit != "bytes" && unit != "byte" || n < 0 || n > len(s)-start {
			return nil, -1
		}
		carried = append(carried, s[start:start+n])
		end = start + n
	}
	return carried, end
}

// carriedEnd returns the offset in a summary body just past its carried
// messages, or 0 when it has none that parse.
func carriedEnd(body string) int {
	i := strings.Index(body, CarriedHeader)
	if i < 0 {
		return 0
	}
	_, end := parseCarried(body[i+len(CarriedHeader):])
	if end < 0 {
		return 0
	}
	return i + len(CarriedHeader) + end
}

// Counter measures what carried messages take: a tokens.Counter.
type Counter interface {
	CountText(s string) int
	CountMessage(m Message) int
}

// CarriedEntryTokens is a generous count of a carried entry line's tokens.
const CarriedEntryTokens = 8

// minCarriedTokens is the least of a message worth carrying cut down: below
// it the head and tail around the cut marker say too little.
const minCarriedTokens = 48

// ChooseCarried picks the real user messages carried verbatim: the newest
// first while they fit budget tokens (each counted as a user message and
// its entry line), the oldest of those cut to fit. The result is oldest
// first; candidates are oldest first. The oldest that fits only in part
// also stays among the dropped, so a summarizer reads it whole.
func ChooseCarried(candidates []string, budget int, tc Counter) (chosen, dropped []string) {
	if budget <= 0 {
		return nil, candidates
	}
	used := 0
	k := len(candidates)
	for k > 0 {
		t := candidates[k-1]
		// Counted as a user message: a little over the text alone, and
		// memoised, so a candidate that is a message of the history (or was
		// carried last time) is not tokenised again.
		n := tc.CountMessage(Message{Role: RoleUser, Content: t}) + CarriedEntryTokens
		if used+n <= budget {
			used += n
			k--
			chosen = append(chosen, t)
			continue
		}
		if left := budget - used - CarriedEntryTokens; left >= minCarriedTokens {
			chosen = append(chosen, textcut.ToTokens(t, left, tc.CountText))
		}
		break
	}
	for i, j := 0, len(chosen)-1; i < j; i, j = i+1, j-1 {
		chosen[i], chosen[j] = chosen[j], chosen[i]
	}
	return chosen, candidates[:k]
}
