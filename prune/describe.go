package prune

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/textcut"
)

// prunedPrefix opens every text Prune writes in place of a tool result (and
// each note standing for an image it removed), so a reader, a summarizer or
// Prune itself can tell a stand-in from real output. A tool result that
// starts with it is never pruned again.
const prunedPrefix = "[pruned]"

// isPruned reports whether m is a tool result Prune replaced: a stand-in, a
// back-reference or a demoted result.
func isPruned(m Message) bool {
	return m.Role == msg.RoleTool && strings.HasPrefix(msg.Text(m), prunedPrefix)
}

// isTrimmed reports whether m's text is one Prune wrote: a stand-in, or a
// message of any role the fit pass trimmed.
func isTrimmed(m Message) bool {
	return strings.HasPrefix(msg.Text(m), prunedPrefix)
}

// defaultKeyArgs are the arguments a stand-in quotes to say what a call did,
// in order of preference.
var defaultKeyArgs = []string{"command", "cmd", "path", "file_path", "file", "filename", "url", "query", "pattern", "code"}

// Limits on what a stand-in quotes.
const (
	maxKeyArgs    = 2   // key arguments quoted
	keyValueChars = 100 // characters of one quoted value
	describeChars = 240 // characters of a whole description
)

// describe returns the words naming the call tool result i answers, such as
// `bash (command: go test ./...)`.
func (p *pruner) describe(i int) string {
	m := p.msgs[i]
	u, ok := p.use(i)
	if !ok {
		return "tool call " + textcut.Clip(textcut.OneLine(m.ToolCallID), keyValueChars)
	}
	rule := p.rules[u.name]
	if rule.Describe != nil {
		var args map[string]any
		_ = json.Unmarshal([]byte(u.args), &args) // nil unless a JSON object
		if d := textcut.OneLine(rule.Describe(args, msg.Text(m))); d != "" {
			return textcut.Clip(d, describeChars)
		}
	}
	name := textcut.Clip(textcut.OneLine(u.name), keyValueChars)
	if name == "" {
		name = "tool call " + textcut.Clip(textcut.OneLine(u.id), keyValueChars)
	}
	keys := defaultKeyArgs
	if len(rule.KeyArgs) > 0 {
		keys = rule.KeyArgs
	}
	// Only the quoted values are decoded: the rest may be a whole file.
	var raw map[string]json.RawMessage
	_ = json.Unmarshal([]byte(u.args), &raw)
	var parts []string
	for _, k := range keys {
		if len(parts) == maxKeyArgs {
			break
		}
		var v any
		if r, ok := raw[k]; ok && json.Unmarshal(r, &v) == nil {
			if s := argValue(v); s != "" {
				parts = append(parts, k+": "+textcut.Clip(s, keyValueChars))
			}
		}
	}
	detail := strings.Join(parts, ", ")
	if detail == "" {
		// No key argument: the arguments themselves.
		if a := textcut.OneLine(textcut.Clip(u.args, 4*keyValueChars)); a != "{}" {
			detail = textcut.Clip(a, keyValueChars)
		}
	}
	if detail == "" {
		return name
	}
	return textcut.Clip(name+" ("+detail+")", describeChars)
}

// argValue renders one decoded argument on one line; "" for null or
// nothing.
func argValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return textcut.OneLine(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return ""
		}
		return textcut.OneLine(string(b))
	}
}

// exitStatusAt matches, at the start of lower-cased text, a statement of
// the exit status a command's output reports: "exit status 1", "exit
// code: 1", "exited with code 1", "returncode=1", `"exit_code": 1`,
// "[exit 1]", and SWE-agent's "PROCESS-DONE:1:PROCESS-DONE".
var exitStatusAt = regexp.MustCompile(`^(?:exit(?:ed with)?[ _-]?(?:status|code)|return[ _-]?code)["']?\s*[:=]?\s*(-?\d{1,4})\b|^\[exit (-?\d{1,4})\]|^process-done:(-?\d{1,4}):process-done`)

// Where exitStatusOf looks: the status is printed last (or first, in a
// JSON envelope), and text further in may quote one that is not this
// command's.
const (
	statusHead = 256
	statusTail = 512
)

// exitStatusOf returns the exit status out reports, or "": the last one
// stated near its end, or else the first one stated near its start.
func exitStatusOf(out string) string {
	if len(out) <= statusHead+statusTail {
		return lastExitStatus(out)
	}
	if s := lastExitStatus(out[len(out)-statusTail:]); s != "" {
		return s
	}
	if all := exitStatuses(out[:statusHead]); len(all) > 0 {
		return all[0]
	}
	return ""
}

func lastExitStatus(s string) string {
	if all := exitStatuses(s); len(all) > 0 {
		return all[len(all)-1]
	}
	return ""
}

// maxStatusLen bounds a statement of an exit status, in bytes.
const maxStatusLen = 48

// exitStatuses returns the statuses s states, in order. The anchored
// pattern is tried only where one of its keywords starts a word, which
// keeps the scan linear and cheap.
func exitStatuses(s string) []string {
	low := strings.ToLower(s)
	var at []int
	for _, kw := range [...]string{"exit", "return", "process-done:"} {
		for i := 0; ; {
			j := strings.Index(low[i:], kw)
			if j < 0 {
				break
			}
			j += i
			if j > 0 && low[j-1] == '[' {
				at = append(at, j-1) // "[exit 1]"
			}
			if j == 0 || !textcut.IsWordByte(low[j-1]) {
				at = append(at, j)
			}
			i = j + len(kw)
		}
	}
	sort.Ints(at)
	var out []string
	end := 0
	for _, i := range at {
		if i < end {
			continue
		}
		if m := exitStatusAt.FindStringSubmatch(low[i:min(i+maxStatusLen, len(low))]); m != nil {
			for _, g := range m[1:] {
				if g != "" {
					out = append(out, g)
					break
				}
			}
			end = i + len(m[0])
		}
	}
	return out
}

// resultSize says how big out is: "312 lines, 14213 bytes".
func resultSize(out string) string {
	lines := strings.Count(out, "\n")
	if out != "" && !strings.HasSuffix(out, "\n") {
		lines++
	}
	unit := " lines, "
	if lines == 1 {
		unit = " line, "
	}
	return strconv.Itoa(lines) + unit + strconv.Itoa(len(out)) + " bytes"
}

// resultFacts is the status and size of out, as a stand-in states them.
func resultFacts(out string) string {
	if s := exitStatusOf(out); s != "" {
		return "exit status " + s + ", " + resultSize(out)
	}
	return resultSize(out)
}

// maskText is the stand-in of a masked result, and the change's note.
func maskText(desc, out string) (text, note string) {
	f := resultFacts(out)
	return prunedPrefix + " Output of " + desc + " removed to save space (" + f +
		"). Call the tool again if you need it.", desc + ": " + f
}

// dedupText is the back-reference replacing a result identical to the
// result of call newer, further down.
func dedupText(desc, newer, out string) string {
	return prunedPrefix + " Output of " + desc + " removed: identical to the result of " +
		textcut.Clip(textcut.OneLine(newer), keyValueChars) + " further down (" + resultSize(out) + ")."
}

// demoteText is a demoted result: a stand-in line, then the output's head
// and tail.
func demoteText(desc, out string) (text, note string) {
	f := resultFacts(out)
	return prunedPrefix + " Output of " + desc + " shortened to fit the context window (" + f +
		"); its start and end follow.\n" + textcut.Middle(out, pressureExcerptChars, textcut.InChars, textcut.HeadShare, textcut.LineMarker), desc + ": " + f
}

// trimText is a trimmed message of role role: a stand-in line, then the
// text's head and tail.
func trimText(role, text string) (out, note string) {
	size := resultSize(text)
	return prunedPrefix + " This " + role + " message was shortened to fit the context window (" + size +
		"); its start and end follow.\n" + textcut.Middle(text, pressureExcerptChars, textcut.InChars, textcut.HeadShare, textcut.LineMarker), role + " message: " + size
}
