package compact

import "strings"

// This file reads a previous summary back, so a new extractive summary
// updates it instead of losing it.

// previousSeqBase numbers a previous summary's entries below any entry of
// the new turns, so they count as older.
const previousSeqBase = -1 << 30

// mergePrevious folds a previous summary into the digest. One in the
// extractive format is merged section by section, its entries older than
// any from the turns: its current task joins the asks (so it becomes an
// earlier request once the turns hold a newer one), its state stands only
// when the turns show none, its pending calls only when there are no turns
// (otherwise they have since been answered or are in the turns). Any other
// summary is kept verbatim under Earlier summary.
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
	d.earlier = p.blocks[secEarlier]
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
