package extractive

import (
	"sort"
	"strings"

	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/redact"
)

// This file turns a digest into the extractive summary's Markdown: lists
// capped and shortened, and the whole fitted to a token target.

// Shares of the target, in percent, that hold each quoted field before any
// list entry is dropped.
const (
	taskShare    = 30
	earlierShare = 30
	stateShare   = 20
)

// listWeights are the prose lists' relative shares of the room left after
// the quoted fields, used when trimming: what a successor most needs (the
// commands and their outcomes) keeps the most room; decisions, the least.
// A list under its share lends the rest to the others. The files and
// errors are in the facts index, which is fitted by its own keep order.
var listWeights = [numSections]int{
	secRequests:  12,
	secCommands:  15,
	secCalls:     10,
	secDecisions: 6,
	secPending:   10,
}

type draftItem struct {
	text      string
	seq, rank int
	dropped   bool
}

// draft is a summary being fitted: quoted fields with their current
// length limits, and list entries that trimming may drop.
type draft struct {
	floor  int // how short trimming makes a quoted field, in bytes
	focus  string
	facts  *factIndex
	blocks [numSections]string
	limit  [numSections]int
	items  [numSections][]draftItem
}

func newDraft(d *digest, focus string, lim Limits, target int) *draft {
	dr := &draft{}
	budget := target * bytesPerToken
	dr.floor = min(max(budget/8, minBlockFloor), maxBlockFloor)
	if focus != "" {
		n := min(maxFocusChars, max(budget/8, minBlockFloor))
		dr.focus = textcut.Middle(redact.JSON(textcut.OneLine(redactWindows(focus, n))), n, textcut.InBytes, textcut.TwoThirds, shortenMark)
	}
	share := func(limit, pct int) int { return max(dr.floor, min(limit, budget*pct/100)) }

	asks := &d.asks
	var newest entry
	for _, e := range d.asks.list {
		if e.raw != "" && (newest.raw == "" || e.seq > newest.seq) {
			newest = e
		}
	}
	if newest.raw != "" {
		dr.blocks[secTask] = redactWindows(normalizeBlock(newest.raw), lim.TaskChars)
		dr.limit[secTask] = share(lim.TaskChars, taskShare)
		asks.remove(newest.raw)
	}
	dr.blocks[secEarlier] = redactWindows(normalizeBlock(d.earlier), lim.EarlierChars)
	dr.limit[secEarlier] = share(lim.EarlierChars, earlierShare)
	dr.blocks[secState] = redactWindows(normalizeBlock(preferProse(d.state)), lim.StateChars)
	dr.limit[secState] = share(lim.StateChars, stateShare)

	settleFiles(&d.files)
	dr.facts = newFactIndex(d, lim)
	lists := [...]struct {
		sec int
		e   *entries
		cap int
	}{
		{secRequests, asks, lim.Requests},
		{secCommands, &d.commands, lim.Commands},
		{secCalls, &d.calls, lim.ToolCalls},
		{secDecisions, &d.decisions, lim.Decisions},
		{secPending, &d.pending, lim.Pending},
	}
	for _, l := range lists {
		for _, e := range keepWritten(d.written, l.e.list, l.cap, lim.ItemChars) {
			text := entryPrefix[l.sec] + e.raw + entrySuffix[l.sec]
			dr.items[l.sec] = append(dr.items[l.sec], draftItem{text: text, seq: e.seq, rank: e.rank})
		}
	}
	return dr
}

// settleFiles lists a file modified only there and one read only under
// read, then drops the mentions that shadowed paths name less well.
func settleFiles(files *[fileGroups]entries) {
	dotPaths(files)
	for g := fileModified; g < fileReferenced; g++ {
		for _, e := range files[g].list {
			for h := g + 1; h < fileGroups; h++ {
				if got, ok := files[h].remove(e.raw); ok {
					files[g].add(e.raw, got.seq, got.rank)
				}
			}
		}
	}
	dropShadowed(files)
}

// dotPaths makes x.go and ./x.go one file: where the ./ form was written
// anywhere (as a tool was given it), every entry of x.go takes it, so the
// index lists the path whole.
func dotPaths(files *[fileGroups]entries) {
	dotted := map[string]bool{}
	for g := range files {
		for _, e := range files[g].list {
			if rest, ok := strings.CutPrefix(e.raw, "./"); ok && rest != "" {
				dotted[rest] = true
			}
		}
	}
	for g := range files {
		var bare []string
		for _, e := range files[g].list {
			if e.raw != "" && dotted[e.raw] {
				bare = append(bare, e.raw)
			}
		}
		for _, p := range bare {
			got, _ := files[g].remove(p)
			files[g].add("./"+p, got.seq, got.rank)
		}
	}
}

// dropShadowed removes from the referenced files each path only mentioned
// in prose or output that is the tail of a longer path listed anywhere
// (duration_test.go beside internal/timeutil/duration_test.go): it names
// the same file less well. Paths a tool call touched stay as written.
func dropShadowed(files *[fileGroups]entries) {
	tails := map[string]bool{}
	for g := range files {
		for _, e := range files[g].list {
			for i := 0; i < len(e.raw)-1; i++ {
				if e.raw[i] == '/' {
					tails[e.raw[i+1:]] = true
				}
			}
		}
	}
	var shadowed []string
	for _, e := range files[fileReferenced].list {
		if tails[e.raw] && e.rank%rankFocus == rankMention {
			shadowed = append(shadowed, e.raw)
		}
	}
	for _, p := range shadowed {
		files[fileReferenced].remove(p)
	}
}

// keepWritten caps list at n entries in their written form (itemText,
// bytes long at most, remembered in w). Only candidates that can survive the cap are written,
// since redacting every entry of a long history would dominate the cost:
// twice the cap is taken by raw text, written, merged where two now read
// the same, and capped again.
func keepWritten(w *written, list []entry, n, bytes int) []entry {
	if n < 0 {
		return nil
	}
	out := &entries{}
	for _, e := range keep(list, 2*n+1) {
		out.add(w.item(e.raw, bytes), e.seq, e.rank)
	}
	return keep(out.list, n)
}

// fit renders the draft within target tokens as count measures them, by
// the policy Summarize documents, and returns the text.
func (dr *draft) fit(target int, count func(string) int) string {
	out := dr.render()
	total := count(out)
	if total <= target {
		return out
	}
	// The facts index first takes what the prose leaves, the prose keeping
	// at least its share; the prose then fits in the rest.
	if !dr.facts.empty() {
		prose := count(dr.renderProse())
		dr.facts.fit(target-proseRoom(target, prose), count)
		out = dr.render()
		if total = count(out); total <= target {
			return out
		}
	}
	// Trim the list that takes the most room for its weight, its
	// lowest-ranked, oldest entry first, until the summary fits.
	var order [numSections][]int
	var room [numSections]int
	for sec, items := range dr.items {
		for i, it := range items {
			order[sec] = append(order[sec], i)
			room[sec] += count("- " + it.text + "\n")
		}
		sort.SliceStable(order[sec], func(a, b int) bool {
			x, y := items[order[sec][a]], items[order[sec][b]]
			if x.rank != y.rank {
				return x.rank < y.rank
			}
			return x.seq < y.seq
		})
	}
	for total > target {
		sec := -1
		for s := range order {
			if len(order[s]) > 0 && (sec < 0 || room[s]*listWeights[sec] > room[sec]*listWeights[s]) {
				sec = s
			}
		}
		if sec < 0 {
			break
		}
		it := &dr.items[sec][order[sec][0]]
		order[sec] = order[sec][1:]
		it.dropped = true
		cost := count("- " + it.text + "\n")
		room[sec] -= cost
		total -= cost
		if dr.partEmpty(partOf(sec)) {
			total -= count(headingPrefix + summaryParts[partOf(sec)].heading + "\n\n")
		}
		if total <= target {
			out = dr.render()
			total = count(out)
		}
	}
	for {
		out = dr.render()
		if count(out) <= target {
			return out
		}
		best, bestLen := -1, dr.floor
		for sec := range dr.blocks {
			if n := min(len(dr.blocks[sec]), dr.limit[sec]); isBlock(sec) && n > bestLen {
				best, bestLen = sec, n
			}
		}
		if best < 0 {
			break
		}
		dr.limit[best] = max(dr.floor, bestLen/2)
	}
	// The prose is as short as it gets: the index gives up what is left.
	// The parts' counts need not add up to the whole's (the separators
	// between parts, rounding), so the index's room shrinks by whatever the
	// whole is still over until it fits or the index has no room left.
	if !dr.facts.empty() {
		budget := target - count(dr.renderProse())
		for {
			dr.facts.fit(budget, count)
			out = dr.render()
			over := count(out) - target
			if over <= 0 || budget <= 0 {
				break
			}
			budget -= over
		}
	}
	return out
}

func (dr *draft) listEmpty(sec int) bool {
	for _, it := range dr.items[sec] {
		if !it.dropped {
			return false
		}
	}
	return true
}

func (dr *draft) partEmpty(at int) bool {
	for _, sec := range summaryParts[at].secs {
		if !dr.listEmpty(sec) {
			return false
		}
	}
	return true
}

// render writes the draft as it stands: the focus line, the facts index,
// then each heading of summaryParts that has something under it.
func (dr *draft) render() string {
	var b strings.Builder
	if dr.focus != "" {
		b.WriteString(focusPrefix + dr.focus + "\n\n")
	}
	if dr.facts != nil {
		dr.facts.render(&b)
	}
	dr.writeProse(&b)
	return strings.TrimRight(b.String(), "\n")
}

// renderProse writes the draft's headings after the facts index.
func (dr *draft) renderProse() string {
	var b strings.Builder
	dr.writeProse(&b)
	return strings.TrimRight(b.String(), "\n")
}

func (dr *draft) writeProse(b *strings.Builder) {
	for _, p := range summaryParts {
		if p.index || p.legacy {
			continue
		}
		if sec := p.secs[0]; isBlock(sec) {
			text := textcut.Middle(dr.blocks[sec], dr.limit[sec], textcut.InBytes, textcut.TwoThirds, shortenMark)
			if text == "" {
				continue
			}
			b.WriteString(headingPrefix + p.heading + "\n")
			for _, l := range strings.Split(text, "\n") {
				if l = strings.TrimRight(l, " \t"); l == "" {
					b.WriteString(">\n")
				} else {
					b.WriteString("> " + l + "\n")
				}
			}
			b.WriteByte('\n')
			continue
		}
		var items []draftItem
		for _, sec := range p.secs {
			for _, it := range dr.items[sec] {
				if !it.dropped {
					items = append(items, it)
				}
			}
		}
		if len(items) == 0 {
			continue
		}
		if p.byTime {
			sort.SliceStable(items, func(i, j int) bool { return items[i].seq < items[j].seq })
		}
		b.WriteString(headingPrefix + p.heading + "\n")
		for _, it := range items {
			b.WriteString("- " + it.text + "\n")
		}
		b.WriteByte('\n')
	}
}
