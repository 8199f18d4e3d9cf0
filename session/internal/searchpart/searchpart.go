// Package searchpart cuts a record's search text into the pieces the
// stores' search indexes keep, so that an index without positions makes a
// candidate of a piece of a long text rather than of the whole text.
//
// Pieces overlap by Overlap bytes: a text of at most Overlap+1 bytes found
// anywhere in the whole is found whole in one piece. A store looks up
// Window(text), never more, so that whatever it looks up is in a piece
// whole; it then checks each candidate record's whole text, so the answers
// are those of an index of whole texts.
package searchpart

import "unicode/utf8"

const (
	// Size is the length of a piece in bytes, but for the last piece of a
	// text, which runs to its end, and the few bytes that widen a piece to
	// whole runes.
	Size = 4096
	// Overlap is how many bytes a piece shares with the next.
	Overlap = 256
	// maxWindow is the longest text a store looks up: a text folded by
	// strings.ToLower is at least a third of the bytes it was folded from
	// (the Kelvin sign, three bytes, folds to 'k'), so a match of a window
	// in a folded text spans at most 3*maxWindow <= Overlap bytes of the
	// text as written.
	maxWindow = Overlap / 4
)

// Split returns the pieces of text, in order: text itself when it is at
// most Size bytes, else pieces of Size bytes starting every Size-Overlap
// bytes, each widened to whole runes (a byte that is not UTF-8 counts as a
// rune), the last running to the end; at most max pieces (at least one),
// the last then holding the rest of the text, however long.
func Split(text string, max int) []string {
	spans := spans(text, max)
	parts := make([]string, len(spans))
	for i, sp := range spans {
		parts[i] = text[sp[0]:sp[1]]
	}
	return parts
}

// spans returns where Split's pieces start and end in text.
func spans(text string, max int) [][2]int {
	if len(text) <= Size {
		return [][2]int{{0, len(text)}}
	}
	const step = Size - Overlap
	var spans [][2]int
	for at := 0; ; at += step {
		start := at
		for start > 0 && !utf8.RuneStart(text[start]) {
			start--
		}
		end := at + Size
		if end >= len(text) || len(spans) >= max-1 {
			end = len(text)
		}
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++
		}
		spans = append(spans, [2]int{start, end})
		if end == len(text) {
			return spans
		}
	}
}

// Window returns the part of text a store looks up in the pieces of
// texts as written, whose matches are found in them folded by
// strings.ToLower: text, or its first bytes when it is longer than a piece
// is sure to hold whole (cut at a rune's start). A record holding text has
// a piece holding the window.
func Window(text string) string { return Prefix(text, maxWindow) }

// FoldedWindow is Window for pieces of texts folded before they were cut,
// which a piece holds whole up to Overlap bytes.
func FoldedWindow(text string) string { return Prefix(text, Overlap) }

// Prefix returns text, or its first bytes up to n, cut at a rune's start.
func Prefix(text string, n int) string {
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}
