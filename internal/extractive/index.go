package extractive

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/english"
	"github.com/contextkit/compact/internal/textcut"
	"github.com/contextkit/compact/redact"
)

// This file writes the facts index, the first part of an extractive
// summary: the facts a successor must not have to rediscover, written
// densely before any prose, and kept in a fixed order when the budget
// cannot hold them all.

// The kinds of fact in the index. The first four are kept in this order
// when the budget is short; the rest go first, oldest first.
const (
	factUnresolved = iota // error lines no later clean run of their command resolved
	factModified          // files a tool call changed
	factID                // identifiers tool calls passed
	factCommand           // the last shell command
	factResolved          // error lines a later clean run resolved
	factRead              // files a tool call read
	factReferenced        // paths otherwise named
	numFactKinds
)

// factKindNames name the kinds in the index's "Left out" line, in the
// singular: the line counts them ("1 read file, 3 referenced paths").
var factKindNames = [numFactKinds]string{
	"unresolved error", "modified file", "identifier", "last command",
	"resolved error", "read file", "referenced path",
}

// keepClass is how long a kind survives trimming: a higher class is kept
// longer. Resolved errors, read files and referenced paths share the
// lowest class and go by rank, then age.
var keepClass = [numFactKinds]int{
	factUnresolved: 4, factModified: 3, factID: 2, factCommand: 1,
}

// The labels of the index's lines. parseFacts reads them back.
const (
	factsHeading   = "Facts"
	unresolvedHead = "Unresolved errors"
	resolvedHead   = "Resolved errors"
	userErrorsTail = " the user pasted"
	modifiedLabel  = "Modified: "
	readLabel      = "Read: "
	referLabel     = "Referenced: "
	idsLabel       = "IDs: "
	commandLabel   = "Last command: "
	leftOutLabel   = "Left out: "
	subItem        = "  - "
	commandIndent  = "    "
)

// maxCommandChars bounds the last command in the index, in bytes: a
// longer one (a script, a file written through a here-document) keeps its
// head (two thirds) and its tail. An error line, like every list entry, is
// held to Limits.ItemChars the same way.
const maxCommandChars = 400

// proseShare is the share of the target, in percent, the prose sections
// keep (when they need it) however many facts compete for the room, and
// minProseTokens the least they keep: a task line and the last action.
const (
	proseShare     = 15
	minProseTokens = 48
)

// proseRoom is what the prose keeps of target when facts compete for it.
func proseRoom(target, prose int) int {
	return min(prose, max(target*proseShare/100, minProseTokens))
}

// factItem is one entry of the index.
type factItem struct {
	kind      int
	text      string // as written: redacted and shortened
	group     string // an error's run, a path's directory, an identifier's key
	tools     string // an identifier's tools, comma-separated
	seq, rank int
	dropped   bool
}

// factIndex is the index being fitted.
type factIndex struct {
	items   []factItem
	leftOut [numFactKinds]int // left out by the caps, or by a previous summary
	idForm  int               // 0: key and tools; 1: key only; 2: bare values
	written string            // the last rendering; "" when something changed since
}

// Forms of the identifier line, from the fullest.
const (
	idsWithTools = iota
	idsWithKeys
	idsBare
)

// newFactIndex builds the index from what the scan found, each kind capped
// by lim (the highest ranks and, within a rank, the newest survive; what a
// cap drops is counted as left out).
func newFactIndex(d *digest, lim Limits) *factIndex {
	fx := &factIndex{leftOut: d.facts.leftOut}
	var unresolved, resolved []entry
	for _, e := range d.errors.list {
		switch {
		case e.raw == "":
		case d.resolved(e):
			resolved = append(resolved, e)
		default:
			unresolved = append(unresolved, e)
		}
	}
	// Two lines that read the same once written are one, under the run
	// that printed the newer.
	seen := map[string]int{}
	addErrors := func(kind int, list []entry) {
		kept := keep(list, lim.Errors)
		fx.leftOut[kind] += len(list) - len(kept)
		for _, e := range kept {
			text := d.written.item(e.raw, lim.ItemChars)
			if text == "" {
				continue // nothing left once redacted
			}
			it := factItem{kind: kind, text: text, group: d.written.str(d.facts.errFrom[e.raw]), seq: e.seq, rank: e.rank}
			if i, ok := seen[text]; ok {
				if e.seq > fx.items[i].seq {
					it.rank = max(it.rank, fx.items[i].rank)
					fx.items[i] = it
				}
				continue
			}
			seen[text] = len(fx.items)
			fx.items = append(fx.items, it)
		}
	}
	addErrors(factUnresolved, unresolved)
	addErrors(factResolved, resolved)

	// A path listed in a group is not listed again in a later one, even
	// when only its written form is the same.
	listed := map[string]bool{}
	for g, kind := range [fileGroups]int{factModified, factRead, factReferenced} {
		var list []entry
		for _, e := range d.files[g].list {
			if e.raw != "" {
				list = append(list, e)
			}
		}
		kept := keepWritten(d.written, list, lim.Files, lim.ItemChars)
		fx.leftOut[kind] += len(list) - len(kept)
		for _, e := range kept {
			if e.raw != "" && !listed[e.raw] {
				listed[e.raw] = true
				fx.items = append(fx.items, factItem{kind: kind, text: e.raw, group: pathDir(e.raw), seq: e.seq, rank: e.rank})
			}
		}
	}

	// keep chooses among identifiers by their position in the list.
	ids := make([]entry, 0, len(d.facts.ids.list))
	for i, e := range d.facts.ids.list {
		ids = append(ids, entry{raw: strconv.Itoa(i), seq: e.seq, rank: e.rank})
	}
	kept := keep(ids, lim.Identifiers)
	fx.leftOut[factID] += len(ids) - len(kept)
	for _, k := range kept {
		i, _ := strconv.Atoi(k.raw)
		e := d.facts.ids.list[i]
		value := d.written.str(e.value)
		if !readsBackInIDLine(value) {
			continue // redaction wrote a marker that would not read back
		}
		var tools []string
		for _, t := range e.tools {
			if t = d.written.str(t); readsBackInIDLine(t) {
				tools = append(tools, t)
			}
		}
		key := d.written.str(e.key)
		if !readsBackInIDLine(key) {
			key = ""
		}
		fx.items = append(fx.items, factItem{kind: factID, text: value, group: key,
			tools: strings.Join(tools, ", "), seq: e.seq, rank: e.rank})
	}

	if c := strings.TrimSpace(d.facts.lastCmd); c != "" {
		text := textcut.Middle(strings.TrimSpace(strings.ReplaceAll(redact.String(redactWindows(c, maxCommandChars)), "\r", "")), maxCommandChars, textcut.InBytes, textcut.TwoThirds, shortenMark)
		if text != "" {
			fx.items = append(fx.items, factItem{kind: factCommand, text: text, seq: d.facts.cmdSeq, rank: rankNormal})
		}
	}
	return fx
}

// readsBackInIDLine reports a value, argument name or tool name that the
// identifier line can hold and parseIDs read back: not empty, and none of
// the bytes that separate its parts.
func readsBackInIDLine(s string) bool {
	return s != "" && !strings.ContainsAny(s, " ,;()=\n")
}

// pathDir is the directory a path is grouped under.
func pathDir(p string) string {
	if !strings.Contains(p, "/") {
		return "."
	}
	return path.Dir(p)
}

// empty reports an index with nothing to write.
func (fx *factIndex) empty() bool {
	if fx == nil {
		return true
	}
	for _, it := range fx.items {
		if !it.dropped {
			return false
		}
	}
	for _, n := range fx.leftOut {
		if n > 0 {
			return false
		}
	}
	return true
}

// render writes the index under its heading, followed by a blank line;
// nothing when it is empty.
func (fx *factIndex) render(b *strings.Builder) {
	if fx.written == "" && !fx.empty() {
		var w strings.Builder
		fx.write(&w)
		fx.written = w.String()
	}
	b.WriteString(fx.written)
}

func (fx *factIndex) write(b *strings.Builder) {
	b.WriteString(headingPrefix + factsHeading + "\n")
	for _, kind := range [...]int{factUnresolved, factModified, factID, factCommand, factResolved, factRead, factReferenced} {
		items := fx.kept(kind)
		if len(items) == 0 {
			continue
		}
		switch kind {
		case factUnresolved, factResolved:
			writeErrorGroups(b, kind, items)
		case factModified, factRead, factReferenced:
			label := map[int]string{factModified: modifiedLabel, factRead: readLabel, factReferenced: referLabel}[kind]
			b.WriteString("- " + label + joinGroups(items, func(it factItem) string { return it.group }, quoteListItem) + "\n")
		case factID:
			b.WriteString("- " + idsLabel + fx.idLine(items) + "\n")
		case factCommand:
			lines := strings.Split(items[len(items)-1].text, "\n")
			b.WriteString("- " + commandLabel + strings.TrimRight(lines[0], " \t") + "\n")
			for _, l := range lines[1:] {
				if l = strings.TrimRight(l, " \t"); l != "" {
					b.WriteString(commandIndent + l + "\n")
				}
			}
		}
	}
	var left []string
	for kind, n := range fx.leftOut {
		if n > 0 {
			left = append(left, strconv.Itoa(n)+" "+english.Noun(n, factKindNames[kind]))
		}
	}
	if len(left) > 0 {
		b.WriteString("- " + leftOutLabel + strings.Join(left, ", ") + "\n")
	}
	b.WriteByte('\n')
}

// kept returns the entries of kind still in the index, oldest first.
func (fx *factIndex) kept(kind int) []factItem {
	var out []factItem
	for _, it := range fx.items {
		if it.kind == kind && !it.dropped {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// writeErrorGroups writes error lines under the run that printed them,
// the runs in the order of their oldest line.
func writeErrorGroups(b *strings.Builder, kind int, items []factItem) {
	head := unresolvedHead
	if kind == factResolved {
		head = resolvedHead
	}
	for _, g := range groupItems(items, func(it factItem) string { return it.group }) {
		switch run := g[0].group; run {
		case "":
			b.WriteString("- " + head + ":\n")
		case userRun:
			b.WriteString("- " + head + userErrorsTail + ":\n")
		default:
			b.WriteString("- " + head + " from `" + run + "`:\n")
		}
		for _, it := range g {
			b.WriteString(subItem + it.text + "\n")
		}
	}
}

// groupItems splits items (oldest first) into groups by key, the groups
// in the order of their oldest entry.
func groupItems(items []factItem, key func(factItem) string) [][]factItem {
	at := map[string]int{}
	var groups [][]factItem
	for _, it := range items {
		k := key(it)
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], it)
	}
	return groups
}

// joinGroups writes items as one line: a group's entries joined by ", ",
// the groups by "; ".
func joinGroups(items []factItem, key func(factItem) string, text func(factItem) string) string {
	var parts []string
	for _, g := range groupItems(items, key) {
		texts := make([]string, len(g))
		for i, it := range g {
			texts[i] = text(it)
		}
		parts = append(parts, strings.Join(texts, ", "))
	}
	return strings.Join(parts, "; ")
}

// quoteListItem writes an entry of a one-line list, as a Markdown code
// span when it holds what would split it (", " or "; "), ends in , or ;,
// or opens with a backquote: between runs of one backquote more than the
// longest run inside, with a space inside each when the entry opens or
// ends with a backquote.
func quoteListItem(it factItem) string {
	t := it.text
	if !strings.Contains(t, ", ") && !strings.Contains(t, "; ") && !strings.HasPrefix(t, "`") &&
		!strings.HasSuffix(t, ",") && !strings.HasSuffix(t, ";") {
		return t
	}
	longest, run := 0, 0
	for i := 0; i < len(t); i++ {
		if t[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") {
		return fence + " " + t + " " + fence
	}
	return fence + t + fence
}

// idLine writes the identifiers in the index's current form: grouped by
// argument and tools (reservation_id=ZFA04Y, 4OG6T3 (get_reservation_details)),
// by argument alone, or bare.
func (fx *factIndex) idLine(items []factItem) string {
	switch fx.idForm {
	case idsBare:
		return joinGroups(items, func(factItem) string { return "" }, func(it factItem) string { return it.text })
	case idsWithKeys:
		return joinIDGroups(items, func(it factItem) string { return it.group }, "")
	}
	return joinIDGroups(items, func(it factItem) string { return it.group + "\x00" + it.tools }, "tools")
}

func joinIDGroups(items []factItem, key func(factItem) string, withTools string) string {
	var parts []string
	for _, g := range groupItems(items, key) {
		values := make([]string, len(g))
		for i, it := range g {
			values[i] = it.text
		}
		s := strings.Join(values, ", ")
		if k := g[0].group; k != "" {
			s = k + "=" + s
		}
		if withTools != "" && g[0].tools != "" {
			s += " (" + g[0].tools + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
