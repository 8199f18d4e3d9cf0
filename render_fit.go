package compact

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/textcut"
)

// blockSep separates two blocks of a rendering.
const blockSep = "\n\n"

// gapMarkerMax bounds the length of a gap marker, whatever its numbers.
const gapMarkerMax = 100

// gapMarker stands for n blocks of chars characters left out of a rendering.
func gapMarker(n, chars int) string {
	return "[... " + strconv.Itoa(n) + " " + english.Noun(n, "message") + " (" + strconv.Itoa(chars) + " " +
		english.Noun(chars, "character") + ") cut to fit ...]"
}

// fitBlocks joins blocks, dropping a middle run of older ones when they
// exceed o.MaxChars (see RenderTurns for the policy).
func fitBlocks(turns []Message, blocks []string, o RenderOptions) string {
	sizes := make([]int, len(blocks))
	total := 0
	for i, b := range blocks {
		sizes[i] = utf8.RuneCountInString(b)
		total += sizes[i]
	}
	total += max(0, len(blocks)-1) * len(blockSep)
	if o.MaxChars < 0 || total <= o.MaxChars {
		return strings.Join(blocks, blockSep)
	}

	// Room for the blocks kept: the cap less two gap markers and their
	// separators, the most a selection can need.
	budget := o.MaxChars - 2*(gapMarkerMax+len(blockSep))
	keep := make([]bool, len(blocks))
	used := 0
	take := func(i int) bool {
		need := sizes[i] + len(blockSep)
		if used+need > budget {
			return false
		}
		keep[i] = true
		used += need
		return true
	}

	first := -1 // the original ask
	for i, m := range turns {
		if IsRealUser(m) {
			first = i
			break
		}
	}
	anchor := first
	if anchor < 0 {
		anchor = len(blocks) - 1 // no ask: the newest block is what must stay
	}
	if !take(anchor) {
		// Even this one block is too long: cut it to the room there is.
		blocks[anchor] = textcut.Middle(blocks[anchor], budget-len(blockSep), textcut.InChars, o.HeadShare, textcut.LineMarker)
		sizes[anchor] = utf8.RuneCountInString(blocks[anchor])
		take(anchor)
	}
	if first < 0 {
		for i := anchor - 1; i >= 0 && take(i); i-- {
		}
	} else {
		for i := len(blocks) - 1; i > anchor && take(i); i-- {
		}
		for i := anchor + 1; i < len(blocks) && !keep[i] && take(i); i++ {
		}
		for i := 0; i < anchor && take(i); i++ {
		}
	}

	var b strings.Builder
	b.Grow(o.MaxChars)
	for i := 0; i < len(blocks); {
		if b.Len() > 0 {
			b.WriteString(blockSep)
		}
		if keep[i] {
			b.WriteString(blocks[i])
			i++
			continue
		}
		n, chars := 0, 0
		for ; i < len(blocks) && !keep[i]; i++ {
			n++
			chars += sizes[i]
		}
		b.WriteString(gapMarker(n, chars))
	}
	return b.String()
}
