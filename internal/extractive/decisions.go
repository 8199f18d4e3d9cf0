package extractive

import (
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/textcut"
)

// This file finds the sentences of the assistant's prose that state a
// decision, and how strongly.

// decisionStrength says whether a sentence states a decision: 2 for a
// reasoned one (decided, instead, because, the fix is, root cause), 1 for
// an intention (I'll, I will, let's), 0 for none.
func decisionStrength(sentence string) int {
	var buf [maxDecisionLen]byte
	dst := buf[:0]
	if len(sentence) > len(buf) {
		dst = make([]byte, 0, len(sentence))
	}
	return cueStrength(foldCues(dst, sentence))
}

// foldCues appends s to dst as decisionStrength searches it: lower-cased
// with ’ read as ', one byte a rune. Every rune but the ASCII ones, ’, and
// the two whose lower case is ASCII (İ to i, the Kelvin sign to k) becomes
// 0x80: no cue holds one, and like the runes strings.ToLower writes for
// them it is no word byte, so cues and their word boundaries are found
// where they are found in strings.ToLower's copy.
func foldCues(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch r {
		case '’':
			dst = append(dst, '\'')
		case '\u0130':
			dst = append(dst, 'i')
		case '\u212a':
			dst = append(dst, 'k')
		default:
			dst = append(dst, 0x80)
		}
	}
	return dst
}

// cueStrength is decisionStrength of a sentence foldCues wrote. It reads
// s once, trying the cues that start with a word's first byte where a word
// starts: where containsWord finds a cue, it finds a word start.
func cueStrength(s []byte) int {
	best := 0
	for k := 0; k < len(s); k++ {
		if k > 0 && textcut.IsWordByte(s[k-1]) {
			continue
		}
		var cues []cue
		switch s[k] {
		case 'd':
			cues = dCues[:]
		case 'i':
			cues = iCues[:]
		case 'b', 't', 'r', 'l', 'w':
			cues = otherCues[:]
		default:
			continue
		}
		for _, c := range cues {
			end := k + len(c.text)
			if end <= len(s) && string(s[k:end]) == c.text && (end == len(s) || !textcut.IsWordByte(s[end])) {
				if c.strength == 2 {
					return 2
				}
				best = max(best, c.strength)
			}
		}
	}
	return best
}

// cue is a phrase that states a decision, reasoned (strength 2: decided,
// instead, because, the fix is, root cause) or an intention (1: I'll, I
// will, let's, we'll, we will), filed by its first byte for cueStrength.
type cue struct {
	text     string
	strength int
}

var (
	dCues     = [...]cue{{"decided", 2}, {"decide to", 2}}
	iCues     = [...]cue{{"instead", 2}, {"i'll", 1}, {"i will", 1}}
	otherCues = [...]cue{{"because", 2}, {"the fix is", 2}, {"root cause", 2}, {"let's", 1}, {"we'll", 1}, {"we will", 1}}
)

// Sentence lengths worth keeping as a decision, in bytes.
const (
	minDecisionLen = 20
	maxDecisionLen = 600
)

// decisions calls add for each sentence of an assistant's prose that states
// a decision, with its strength. Fenced code is skipped, as are headings,
// tables and quotes.
func decisions(text string, add func(sentence string, strength int)) {
	inFence := false
	for rest := text; rest != ""; {
		var line string
		line, rest = cutLine(rest)
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || t == "" || strings.ContainsRune("#|>", rune(t[0])) || isCodeIndent(line) {
			continue
		}
		t = strings.TrimLeft(t, "-*+ ")
		for t != "" {
			s := t
			if k := sentenceEnd(t); k >= 0 {
				s, t = t[:k+1], strings.TrimSpace(t[k+1:])
			} else {
				t = ""
			}
			if len(s) < minDecisionLen || len(s) > maxDecisionLen || strings.HasSuffix(s, ":") {
				continue // a colon announces the tool call that follows, not a decision
			}
			if n := decisionStrength(s); n > 0 {
				add(s, n)
			}
		}
	}
}

// sentenceEnd returns the index of the punctuation that ends the first
// sentence of s (., ! or ? before a space), or -1.
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			if s[i] == '.' && isAbbrev(s[:i]) {
				continue
			}
			return i
		}
	}
	return -1
}

// isAbbrev reports whether s ends in an abbreviation whose dot ends no
// sentence (e.g., i.e., vs. are the common ones in agent prose).
//
// It reads the last bytes of s alone: of the runes strings.ToLower makes
// ASCII, only İ (to i) can end up in those suffixes.
func isAbbrev(s string) bool {
	n := len(s)
	if n < 3 {
		return false
	}
	last, prev := s[n-1]|0x20, s[n-2]
	switch {
	case prev == '.' && last == 'g':
		return s[n-3]|0x20 == 'e'
	case prev == '.' && last == 'e':
		return s[n-3]|0x20 == 'i' || strings.HasSuffix(s[:n-2], "\u0130")
	case prev|0x20 == 'v' && last == 's':
		return s[n-3] == ' '
	}
	return false
}

// isCodeIndent reports a Markdown code line: indented by a tab or four spaces.
func isCodeIndent(line string) bool {
	return strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")
}
