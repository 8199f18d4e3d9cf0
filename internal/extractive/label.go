package extractive

import (
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/textcut"
)

// squashedLabel returns s squashed (textcut.Squash) and cut in the middle
// to maxRunLabel bytes as callLabel cuts it. A command can run to many
// kilobytes (a heredoc writing a file) of which a label keeps a few dozen
// bytes: for ASCII text whose squashed form is long, only its first and
// last labelEnds bytes are built. That is the label whole, because the
// cut keeps at most maxRunLabel bytes from either end, breaks no line (a
// squashed text has none) and writes the same marker whatever it cut
// (shortenMark counts nothing). FuzzSquashedLabel holds it to the
// squash-then-cut it stands for.
func squashedLabel(s string) string {
	if len(s) > 2*labelEnds && !strings.Contains(shortenMark, "%d") {
		if n, ascii := squashedLen(s); ascii && n > 2*labelEnds {
			// The ends side by side: the cut takes the same head and tail
			// of them as of the whole.
			ends := squashedHead(s, labelEnds) + squashedTail(s, labelEnds)
			return textcut.Middle(ends, maxRunLabel, textcut.InBytes, textcut.TwoThirds, shortenMark)
		}
	}
	return textcut.Middle(textcut.Squash(s), maxRunLabel, textcut.InBytes, textcut.TwoThirds, shortenMark)
}

// labelEnds is how many bytes of either end of a squashed text
// squashedLabel builds: all a cut to maxRunLabel bytes can keep of it.
const labelEnds = maxRunLabel

// squashedLen returns the length of textcut.Squash(s) when s is ASCII, and
// whether it is.
func squashedLen(s string) (n int, ascii bool) {
	gap := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return 0, false
		}
		if isSquashSpace(c) {
			gap = n > 0
			continue
		}
		if gap {
			n++
			gap = false
		}
		n++
	}
	return n, true
}

// squashedHead returns the first n bytes of textcut.Squash(s), s ASCII.
func squashedHead(s string, n int) string {
	b := make([]byte, 0, n)
	gap := false
	for i := 0; i < len(s) && len(b) < n; i++ {
		c := s[i]
		if isSquashSpace(c) {
			gap = len(b) > 0
			continue
		}
		if gap {
			b = append(b, ' ')
			gap = false
			if len(b) == n {
				break
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// squashedTail returns the last n bytes of textcut.Squash(s), s ASCII.
func squashedTail(s string, n int) string {
	b := make([]byte, n)
	k := n
	gap := false
	for i := len(s) - 1; i >= 0 && k > 0; i-- {
		c := s[i]
		if isSquashSpace(c) {
			gap = k < n
			continue
		}
		if gap {
			k--
			b[k] = ' '
			gap = false
			if k == 0 {
				break
			}
		}
		k--
		b[k] = c
	}
	return string(b[k:])
}

// isSquashSpace reports the ASCII bytes textcut.Squash takes for white
// space (those unicode.IsSpace reports).
func isSquashSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
