package extractive

import (
	"strings"
	"unicode"
)

// An assistant turn may paste what a command printed before it says
// anything (aider puts a /run's output, a printed list of dicts and an
// inline image, in the assistant's text). Quoted from its start, the
// current state would be that dump. preferProse keeps the prose.

// Thresholds of a data line, from the shared transcripts: every prose line
// of 160 bytes or more there is at least 83% letters (of its non-space
// characters) with no word over 70 characters; printed dicts, lists and
// numbers are 6-71% letters, an encoded image one 123,000-character word.
const (
	dataLineBytes   = 160  // shorter lines are never data lines
	dataLetterShare = 0.75 // a longer line with fewer letters is data
	dataWordChars   = 120  // so is one with a longer word (a blob)
)

// preferProse returns s without its data lines, each run of them replaced
// by one line holding the shortening mark (and blank lines around it
// folded into one), when a line of anything else remains; otherwise s as
// it is.
func preferProse(s string) string {
	if len(s) < dataLineBytes || !hasDataLine(s) {
		return s
	}
	var b strings.Builder
	prose, inRun, blank := false, false, false
	for line := range strings.SplitSeq(s, "\n") {
		switch {
		case isDataLine(line):
			if !inRun {
				b.WriteString(strings.TrimSpace(shortenMark) + "\n")
				inRun, blank = true, false
			}
		case strings.TrimSpace(line) == "":
			if !blank {
				b.WriteString("\n")
			}
			blank = true
		default:
			b.WriteString(line + "\n")
			prose, inRun, blank = true, false, false
		}
	}
	if !prose {
		return s
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// hasDataLine reports whether any line of s is a data line.
func hasDataLine(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if isDataLine(line) {
			return true
		}
	}
	return false
}

// isDataLine reports whether line reads as printed data rather than
// prose: long, and few letters or one very long word.
func isDataLine(line string) bool {
	if len(line) < dataLineBytes {
		return false
	}
	var letters, other, word, longest int
	for _, r := range line {
		switch {
		case unicode.IsSpace(r):
			word = 0
			continue
		case unicode.IsLetter(r):
			letters++
		default:
			other++
		}
		word++
		longest = max(longest, word)
	}
	return longest > dataWordChars || float64(letters) < dataLetterShare*float64(letters+other)
}
