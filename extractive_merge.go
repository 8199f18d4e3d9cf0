package compact

import "strings"

// This file reads a previous summary back, so a new extractive summary
// updates it instead of losing it.

// previousSeqBase numbers a previous summary's entries below any entry of
// the new turns, so they count as older.
const previousSeqBase = -1 << 30

// parsedSummary is a summary in the extractive format, read back.
type parsedSummary struct {
	blocks [numSections]string
	items  [numSections][]string
	extra  []string // lines under no known heading, kept verbatim
}

// parseExtractive reads s as an extractive summary. ok is false when s is
// in another format: its first line that is not blank (after an optional
// focus line) is not one of our headings.
func parseExtractive(s string) (p parsedSummary, ok bool) {
	sec := -1
	var block [numSections][]string
	for i, line := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		if strings.HasPrefix(line, headingPrefix) {
			sec = headingSection(strings.TrimSpace(line[len(headingPrefix):]))
			if sec < 0 {
				if !ok {
					return p, false
				}
				p.extra = append(p.extra, line)
			}
			ok = true
			continue
		}
		if strings.TrimSpace(line) == "" {
			if sec >= 0 && isBlock(sec) && len(block[sec]) > 0 {
				block[sec] = append(block[sec], "")
			}
			continue
		}
		switch {
		case !ok && i == 0 && strings.HasPrefix(line, focusPrefix):
			// the focus of the previous request; a new request sets its own
		case !ok:
			return p, false
		case sec >= 0 && isBlock(sec) && strings.HasPrefix(line, ">"):
			block[sec] = append(block[sec], strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "))
		case sec >= 0 && !isBlock(sec) && strings.HasPrefix(line, "- "):
			p.items[sec] = append(p.items[sec], strings.TrimSpace(line[2:]))
		default:
			p.extra = append(p.extra, line)
		}
	}
	for sec, lines := range block {
		p.blocks[sec] = strings.TrimSpace(strings.Join(lines, "\n"))
	}
	return p, ok
}

func headingSection(title string) int {
	for sec, h := range headings {
		if h == title {
			return sec
		}
	}
	return -1
}

// mergePrevious folds a previous summary into the digest. One in the
// extractive format is merged section by section, its entries older than
// any from the turns: its current task joins the asks (so it becomes an
// earlier request once the turns hold a newer one), its state stands only
// when the turns show none, its pending calls only when there are no turns
// (otherwise they have since been answered or are in the turns). Any other
// summary, and lines of ours under no known heading, are kept verbatim
// under Earlier summary.
func (d *digest) mergePrevious(prev string, haveTurns bool) {
	if prev == "" {
		return
	}
	p, ok := parseExtractive(strings.TrimSpace(prev))
	if !ok {
		d.earlier = prev
		return
	}
	seq := previousSeqBase
	add := func(e *entries, raw string, base int) {
		seq++
		e.add(raw, seq, d.rank(base, d.mentions(raw)))
	}
	var earlier []string
	if p.blocks[secEarlier] != "" {
		earlier = append(earlier, p.blocks[secEarlier])
	}
	if len(p.extra) > 0 {
		earlier = append(earlier, strings.TrimSpace(strings.Join(p.extra, "\n")))
	}
	d.earlier = strings.Join(earlier, "\n\n")
	for _, it := range p.items[secRequests] {
		add(&d.asks, it, rankNormal)
	}
	if t := p.blocks[secTask]; t != "" {
		add(&d.asks, t, rankNormal)
	}
	for _, f := range [...]struct{ sec, group, rank int }{
		{secModified, fileModified, rankNormal},
		{secRead, fileRead, rankNormal},
		{secReferenced, fileReferenced, rankMention},
	} {
		for _, it := range p.items[f.sec] {
			add(&d.files[f.group], it, f.rank)
		}
	}
	for _, it := range p.items[secCommands] {
		add(&d.commands, it, rankNormal)
	}
	for _, it := range p.items[secCalls] {
		add(&d.calls, it, rankNormal)
	}
	for _, it := range p.items[secErrors] {
		add(&d.errors, it, rankNormal)
	}
	for _, it := range p.items[secDecisions] {
		base := rankNormal
		if decisionStrength(it) < 2 {
			base = rankWeak
		}
		add(&d.decisions, it, base)
	}
	if d.state == "" {
		d.state = p.blocks[secState]
	}
	if !haveTurns {
		for _, it := range p.items[secPending] {
			add(&d.pending, it, rankPending)
		}
	}
}
