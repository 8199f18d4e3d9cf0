package compact

import (
	"strings"

	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/tokens"
)

// earlier is what a history's existing summaries hold.
type earlier struct {
	bodies  []string // summary bodies, oldest first
	carried []string // user messages they carried, oldest first
}

// previousSummary is the text a summarizer updates.
func (e earlier) previousSummary() string {
	return strings.Join(e.bodies, "\n\n")
}

// chooseCarried picks the real user messages carried verbatim: the newest
// first while they fit budget tokens, the oldest of those cut to fit. The
// result is oldest first. candidates are oldest first.
func chooseCarried(candidates []string, budget int, tc tokens.Counter) (chosen []string, dropped []string) {
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
		n := tc.CountMessage(Message{Role: RoleUser, Content: t}) + carriedEntryTokens
		if used+n <= budget {
			used += n
			k--
			chosen = append(chosen, t)
			continue
		}
		// The oldest that fits only in part is carried cut down; it also
		// stays among the dropped, so the summarizer reads it whole.
		if left := budget - used - carriedEntryTokens; left >= minCarriedTokens {
			chosen = append(chosen, textcut.ToTokens(t, left, tc.CountText))
		}
		break
	}
	for i, j := 0, len(chosen)-1; i < j; i, j = i+1, j-1 {
		chosen[i], chosen[j] = chosen[j], chosen[i]
	}
	return chosen, candidates[:k]
}

// carriedEntryTokens is a generous count of an entry line's tokens.
const carriedEntryTokens = 8

// minCarriedTokens is the least of a message worth carrying cut down: below
// it the head and tail around the cut marker say too little.
const minCarriedTokens = 48
