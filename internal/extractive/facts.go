package extractive

import (
	"fmt"
	"sort"
	"strings"
)

// This file collects, as the scan walks the turns, what the facts index
// needs beyond the digest's lists: the identifiers tool calls passed, the
// run that printed each error line, which runs later came back clean, and
// the last command.

// maxRunLabel bounds the label naming the run an error came from: enough
// to tell one command from another, not the whole script.
const maxRunLabel = 60

// userRun is the run label of error lines a user pasted.
const userRun = "the user"

// facts is the facts index's part of a digest.
type facts struct {
	ids     idList
	errFrom map[string]string // error line → label of the run that printed it last
	cleanAt map[string]int    // run label → seq of its latest run that showed no error
	lastCmd string            // the last shell command, verbatim
	cmdSeq  int
	leftOut [numFactKinds]int // what a previous summary said it left out
}

// idEntry is one identifier, with the argument it went under (the latest)
// and the tools it went to (the first few).
type idEntry struct {
	value, key string
	tools      []string
	seq, rank  int
}

// maxIDTools is how many tool names an identifier lists.
const maxIDTools = 3

// idList holds identifiers without repeats, in the order first seen.
type idList struct {
	list []idEntry
	at   map[string]int
}

func (l *idList) add(value, key, tool string, seq, rank int) {
	if l.at == nil {
		l.at = map[string]int{}
	}
	i, ok := l.at[value]
	if !ok {
		i = len(l.list)
		l.at[value] = i
		l.list = append(l.list, idEntry{value: value})
	}
	e := &l.list[i]
	if key != "" && (e.key == "" || seq >= e.seq) {
		e.key = key // the latest argument names it
	}
	e.seq, e.rank = max(e.seq, seq), max(e.rank, rank)
	if tool != "" && len(e.tools) < maxIDTools && !containsString(e.tools, tool) {
		e.tools = append(e.tools, tool)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// noteCall records what a tool call adds to the facts: the identifiers
// its arguments pass (a shell, think or finish call passes none: its
// arguments are a script or prose), and, for a shell call that is not
// program code, its command line as the last command.
func (d *digest) noteCall(name string, args map[string]any, kind toolKind, command string, seq int, hit bool) {
	switch kind {
	case toolShell:
		if !isCodeArg(args) && command != "" {
			d.facts.lastCmd, d.facts.cmdSeq = command, seq
		}
	case toolOther:
		for _, a := range callIDs(args) {
			d.facts.ids.add(a.value, a.key, name, seq, d.rank(rankNormal, hit))
		}
	}
}

// noteErrors records error lines and the run that printed them; the
// latest run to print a line is the one named.
func (d *digest) noteErrors(errs []string, run string, hit bool) {
	if d.facts.errFrom == nil {
		d.facts.errFrom = map[string]string{}
	}
	for _, e := range errs {
		d.errors.add(e, d.next(), d.rank(rankNormal, hit))
		d.facts.errFrom[e] = run
	}
}

// noteClean records that run came back without an error, which resolves
// the errors it printed before.
func (d *digest) noteClean(run string, seq int) {
	if d.facts.cleanAt == nil {
		d.facts.cleanAt = map[string]int{}
	}
	d.facts.cleanAt[run] = max(d.facts.cleanAt[run], seq)
}

// resolved reports whether error line e was printed by a run that later
// came back clean.
func (d *digest) resolved(e entry) bool {
	run, ok := d.facts.errFrom[e.raw]
	if !ok || run == userRun {
		return false
	}
	at, ok := d.facts.cleanAt[run]
	return ok && at > e.seq
}

// runLabel names the run a tool result answers ("" when it answers no
// call): see callLabel.
func runLabel(rec *callRecord) string {
	if rec == nil {
		return ""
	}
	return rec.label
}

// callLabel names a call's run, on one line and shortened to maxRunLabel
// bytes: a shell call's command line; another call's name with its short
// scalar arguments (an editor's sub-command and path, a booking's user and
// route), which is also what makes two runs the same.
func callLabel(name, command string, args map[string]any) string {
	s := command
	if s == "" {
		s = callWithArgs(name, args)
	}
	return strings.ReplaceAll(squashedLabel(s), "`", "'")
}

// maxLabelArg bounds an argument value shortArgs writes: longer ones are
// content (an edit's text), not what tells one run from another.
const maxLabelArg = 60

// callWithArgs is name(key=value, ...) with shortArgs.
func callWithArgs(name string, args map[string]any) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteString(name)
	b.WriteByte('(')
	shortArgs(&b, args)
	b.WriteByte(')')
	return b.String()
}

// shortArgs writes to b a call's scalar arguments that are neither prose
// nor long, as key=value in key order, joined by ", ".
func shortArgs(b *strings.Builder, args map[string]any) {
	var buf [16]string
	keys := buf[:0]
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	first := true
	for _, k := range keys {
		var v string
		switch x := args[k].(type) {
		case string:
			v = x
		case float64, bool:
			v = fmt.Sprint(x)
		default:
			continue
		}
		if isProseKey(k) && !isEditorCommand(k, v) || len(v) > maxLabelArg || strings.ContainsAny(v, "\n\r") {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
}

// isEditorCommand reports an editor's one-word sub-command (view,
// str_replace), which names the run where a command argument of a shell
// would be content.
func isEditorCommand(key, v string) bool {
	return key == "command" && v != "" && !strings.ContainsAny(v, " \t")
}

// isClean reports a result that shows no failure: no error line, and no
// exit status other than 0.
func isClean(errs []string, status string) bool {
	return len(errs) == 0 && (status == "" || status == "exit 0")
}
