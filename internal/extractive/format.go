package extractive

import "strings"

// This file fixes the extractive summary's format: the sections it keeps,
// the headings it writes them under (those DefaultSummaryInstructions asks
// a model for, where one applies, so a successor reads the same note
// whichever summarizer wrote it), and reading a summary back.

// The sections a digest fills. Several may share a heading (see summaryParts).
const (
	secTask       = iota // the latest real user message (a quoted block)
	secEarlier           // a previous summary kept verbatim (a quoted block)
	secRequests          // earlier user messages
	secModified          // files modified
	secRead              // files read
	secReferenced        // files otherwise named
	secCommands          // shell commands, with status
	secCalls             // other tool calls, with status
	secErrors            // error lines
	secDecisions         // decision sentences
	secState             // the last assistant text (a quoted block)
	secPending           // tool calls with no result yet
	numSections
)

// headingPrefix opens a heading; focusPrefix opens the focus line.
const (
	headingPrefix = "## "
	focusPrefix   = "Focus: "
)

// summaryPart is one heading of the summary and the sections written under it.
type summaryPart struct {
	heading string
	secs    []int
	byTime  bool // interleave the sections' entries in the order they were seen
	index   bool // the facts index, written and read by its own rules
	legacy  bool // read back from earlier summaries, no longer written
}

// summaryParts are the summary's headings in the order they are written. They
// follow DefaultSummaryInstructions: Facts (the index: errors, files,
// identifiers, the last command), Task, Goal (the user's earlier asks),
// Completed actions (commands and tool calls, each with its outcome),
// Current state, Decisions, Next steps (calls still running). Earlier
// summary has no counterpart there. Relevant files and Errors held the
// files and errors before the index did: they are read back, never
// written. The headings are also what parseExtractive recognises, so
// renaming one makes summaries written before the change read as foreign
// (kept verbatim, not merged).
var summaryParts = [...]summaryPart{
	{heading: factsHeading, secs: []int{secErrors, secModified, secRead, secReferenced}, index: true},
	{heading: "Task", secs: []int{secTask}},
	{heading: "Goal", secs: []int{secRequests}},
	{heading: "Earlier summary", secs: []int{secEarlier}},
	{heading: "Completed actions", secs: []int{secCommands, secCalls}, byTime: true},
	{heading: "Current state", secs: []int{secState}},
	{heading: "Decisions", secs: []int{secDecisions}},
	{heading: "Relevant files", secs: []int{secModified, secRead, secReferenced}, legacy: true},
	{heading: "Errors", secs: []int{secErrors}, legacy: true},
	{heading: "Next steps", secs: []int{secPending}},
}

// partOf returns the index in summaryParts of the heading sec is written under.
func partOf(sec int) int {
	for i, p := range summaryParts {
		for _, s := range p.secs {
			if s == sec {
				return i
			}
		}
	}
	return -1
}

// isBlock reports the sections written as one quoted text, not a list.
func isBlock(sec int) bool { return sec == secTask || sec == secEarlier || sec == secState }

// A list entry is written with the words that say which section it is
// from, where its heading holds several or where it needs saying.
var (
	entryPrefix = [numSections]string{secPending: "Wait for the result of "}
	entrySuffix = [numSections]string{
		secModified: " (modified)", secRead: " (read)", secReferenced: " (referenced)",
	}
)

// parsedSummary is a summary in the extractive format, read back: each
// section's text or entries, as the digest holds them (undecorated), and
// what the facts index says beyond its files and error lines.
type parsedSummary struct {
	blocks [numSections]string
	items  [numSections][]string
	facts  parsedFacts
}

// parseExtractive reads s as an extractive summary. ok is false when s is
// in any other format, a model's summary under the same headings included:
// every line must be a known heading, the focus line (first), a quoted
// line under a block heading, a "- " entry under a list heading, or blank.
func parseExtractive(s string) (p parsedSummary, ok bool) {
	at := -1
	var block [numSections][]string
	var index []string
	for i, line := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		switch {
		case at >= 0 && summaryParts[at].index && !strings.HasPrefix(line, headingPrefix):
			index = append(index, line)
		case strings.HasPrefix(line, headingPrefix):
			if at = partByHeading(strings.TrimSpace(line[len(headingPrefix):])); at < 0 {
				return parsedSummary{}, false
			}
			ok = true
		case strings.TrimSpace(line) == "":
			if sec := summaryParts[max(at, 0)].secs[0]; at >= 0 && isBlock(sec) && len(block[sec]) > 0 {
				block[sec] = append(block[sec], "")
			}
		case at < 0:
			if i > 0 || !strings.HasPrefix(line, focusPrefix) {
				return parsedSummary{}, false
			}
		case isBlock(summaryParts[at].secs[0]):
			if !strings.HasPrefix(line, ">") {
				return parsedSummary{}, false
			}
			sec := summaryParts[at].secs[0]
			block[sec] = append(block[sec], strings.TrimPrefix(strings.TrimPrefix(line, ">"), " "))
		default:
			if !strings.HasPrefix(line, "- ") {
				return parsedSummary{}, false
			}
			sec, item := entrySection(at, strings.TrimSpace(line[2:]))
			p.items[sec] = append(p.items[sec], item)
		}
	}
	for sec, lines := range block {
		p.blocks[sec] = strings.TrimSpace(strings.Join(lines, "\n"))
	}
	if index != nil && !parseFacts(index, &p) {
		return parsedSummary{}, false
	}
	return p, ok
}

func partByHeading(title string) int {
	for i, p := range summaryParts {
		if p.heading == title {
			return i
		}
	}
	return -1
}

// entrySection tells which of part at's sections a written entry belongs
// to, and returns the entry without its decoration. Under Completed
// actions a name(arguments) entry is a tool call, anything else a command.
func entrySection(at int, item string) (int, string) {
	secs := summaryParts[at].secs
	for _, sec := range secs {
		pre, suf := entryPrefix[sec], entrySuffix[sec]
		if (pre != "" || suf != "") && strings.HasPrefix(item, pre) && strings.HasSuffix(item, suf) && len(item) >= len(pre)+len(suf) {
			return sec, item[len(pre) : len(item)-len(suf)]
		}
	}
	switch {
	case secs[0] == secCommands && looksLikeCall(item):
		return secCalls, item
	case secs[0] == secModified:
		return secReferenced, item // a path with no role
	}
	return secs[0], item
}

// looksLikeCall reports an entry written as name(arguments).
func looksLikeCall(item string) bool {
	id := leadingIdent(item)
	return id != "" && strings.HasPrefix(item[len(id):], "(")
}
