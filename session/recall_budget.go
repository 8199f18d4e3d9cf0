package session

import (
	"unicode/utf8"

	"github.com/contextkit/compact/tokens"
)

// envelopeTokens is what an answer's own fields (truncated, a note) take
// beside its items and the echo of the call's arguments in next: a few
// dozen tokens, with room to spare so the whole answer stays in budget.
const envelopeTokens = 80

// budget is what is left of one answer's tokens, by the session's counter.
type budget struct {
	counter tokens.Counter
	left    int
}

// echoShare is the share of an answer the echo of the call's arguments in
// its next field may take, as a divisor: a quarter, so that a long query or
// seq list never crowds out what was asked for. An echo that would take
// more is shortened (see echoes).
const echoShare = 4

// newBudget starts an answer of at most limit tokens that will echo echo
// (the arguments of the call that continues it, at most limit/echoShare
// tokens) in its next field.
func (s *Session) newBudget(limit int, echo any) *budget {
	b := &budget{counter: s.counter, left: limit - envelopeTokens}
	b.left -= min(b.cost(echo), limit/echoShare)
	return b
}

// echoes reports whether echo fits the share of an answer of limit tokens
// that next may take.
func (s *Session) echoes(limit int, echo any) bool {
	b := budget{counter: s.counter}
	return b.cost(echo) <= limit/echoShare
}

// cost is what v takes as JSON in an answer, a token more for the comma.
func (b *budget) cost(v any) int {
	data, err := marshalJSON(v)
	if err != nil {
		return 0
	}
	return b.counter.CountText(string(data)) + 1
}

// take spends what v costs and reports true when it fits in what is left;
// otherwise it spends nothing and reports false.
func (b *budget) take(v any) bool {
	n := b.cost(v)
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// fit returns the longest prefix of text, cut at a rune boundary, such that
// item(prefix) fits in what is left; 0 when not even one rune does. It
// does not spend.
func (b *budget) fit(text string, item func(string) any) int {
	// A token covers at most a few dozen bytes of ordinary text, so a
	// prefix longer than this cannot fit; it keeps each count short.
	const maxBytesPerToken = 32
	lo, hi := 0, min(len(text), max(b.left, 0)*maxBytesPerToken)
	for lo < hi {
		mid := cutRune(text, (lo+hi+1)/2)
		if mid <= lo {
			// No rune boundary between lo and the middle: try the next
			// rune whole.
			_, size := utf8.DecodeRuneInString(text[lo:])
			mid = lo + size
			if mid > hi {
				break
			}
		}
		if b.cost(item(text[:mid])) <= b.left {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cutRune(text, lo)
}

// cutRune returns n moved back to the start of the rune it falls in.
func cutRune(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
