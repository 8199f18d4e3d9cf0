package extractive

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
	d.mergeErrors(p, add)
	for _, it := range p.items[secDecisions] {
		base := rankNormal
		if decisionStrength(it) < 2 {
			base = rankWeak
		}
		add(&d.decisions, it, base)
	}
	for _, e := range p.facts.ids {
		seq++
		rank := d.rank(rankNormal, d.mentions(e.value))
		d.facts.ids.add(e.value, e.key, "", seq, rank)
		for _, tool := range e.tools {
			d.facts.ids.add(e.value, e.key, tool, seq, rank)
		}
	}
	if d.facts.lastCmd == "" && p.facts.lastCmd != "" {
		seq++
		d.facts.lastCmd, d.facts.cmdSeq = p.facts.lastCmd, seq
	}
	for k, n := range p.facts.leftOut {
		d.facts.leftOut[k] += n
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

// mergeErrors folds a previous summary's error lines into the digest with
// the runs that printed them. Those it marked resolved go first, each
// followed by a clean run of its command, so that an unresolved line of
// the same run, written later, stays unresolved.
func (d *digest) mergeErrors(p parsedSummary, add func(e *entries, raw string, base int)) {
	for _, resolved := range [...]bool{true, false} {
		for _, it := range p.items[secErrors] {
			if p.facts.resolved[it] != resolved {
				continue
			}
			add(&d.errors, it, rankNormal)
			if _, ok := d.facts.errFrom[it]; ok {
				continue // the new turns printed it again
			}
			if d.facts.errFrom == nil {
				d.facts.errFrom = map[string]string{}
			}
			run := p.facts.errRun[it]
			d.facts.errFrom[it] = run
			if resolved {
				d.noteClean(run, d.errors.list[d.errors.at[it]].seq+1)
			}
		}
	}
}
