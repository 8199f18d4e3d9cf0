package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/redact"
)

// The HTML view (-html): one self-contained page per compaction, the
// history before and after side by side, each message coloured by its
// fate. Everything on it is redacted as the report is and stripped of
// control and bidirectional-override characters, then escaped by
// html/template; a Content-Security-Policy allows only the page's own
// style and script (by hash), so even markup that slipped through could
// neither load nor run anything.

// collapseChars is the length past which a message's text is shown folded
// (a <details> element with a preview): long tool output would otherwise
// bury the conversation.
const collapseChars = 1200

// previewChars is how much of a folded message its preview shows.
const previewChars = 240

// page is what the page template renders.
type page struct {
	Title    string
	R        report // redacted
	Settings []pageSetting
	Fates    []fateCount
	Before   []htmlMessage
	After    []htmlMessage
	Facts    []block // the summary's facts index
	Summary  []block // the rest of the summary
	CSP      string
	CSS      template.CSS
	JS       template.JS
}

// fateCount is how many input messages met one fate, for the legend.
type fateCount struct {
	Fate          string
	Count, Tokens int
}

// htmlMessage is one message as the page shows it.
type htmlMessage struct {
	ID     string // the element's id: in-N or out-N
	Index  int
	Role   string
	Tool   string
	Tokens int
	Fate   string // the message's fate; "summary" for the summary written
	Pruned string
	// Links are the messages on the other side this one became or came
	// from, as element ids.
	Links   []link
	Text    string
	Preview string // set when the text is long enough to fold
	Calls   []string
	CallID  string
}

// link points at a message on the other side of the page.
type link struct {
	ID, Label string
}

// clean makes s fit to show: secrets redacted, control and bidirectional
// override characters removed. html/template escapes what is left.
func clean(s string) string { return redact.StripControl(redact.String(s)) }

// newPage builds the page for oc, whose redacted report is r.
func newPage(oc *outcome, r report, title string) *page {
	p := &page{Title: title, R: r, Settings: redactSettings(oc.settings), CSS: template.CSS(pageCSS), JS: template.JS(pageJS)}
	p.CSP = "default-src 'none'; style-src " + hashSource(pageCSS) + "; script-src " + hashSource(pageJS) +
		"; img-src 'none'; base-uri 'none'; form-action 'none'"
	memo := map[string]string{}
	cleanText := func(s string) string {
		if t, ok := memo[s]; ok {
			return t
		}
		t := clean(s)
		memo[s] = t
		return t
	}
	counts := map[string]*fateCount{}
	var order []string
	sources := make([][]link, len(oc.out))
	for _, a := range r.Messages {
		if counts[a.Fate] == nil {
			counts[a.Fate] = &fateCount{Fate: a.Fate}
			order = append(order, a.Fate)
		}
		counts[a.Fate].Count++
		counts[a.Fate].Tokens += a.Tokens
		if a.Output >= 0 && a.Output < len(oc.out) {
			sources[a.Output] = append(sources[a.Output], link{ID: fmt.Sprintf("in-%d", a.Index), Label: fmt.Sprintf("from %d", a.Index)})
		}
	}
	for _, f := range order {
		p.Fates = append(p.Fates, *counts[f])
	}
	p.Before = make([]htmlMessage, len(oc.hist))
	for i, m := range oc.hist {
		h := newHTMLMessage(m, "in", i, cleanText)
		if i < len(r.Messages) {
			a := r.Messages[i]
			h.Tool, h.Tokens, h.Fate, h.Pruned = a.Tool, a.Tokens, a.Fate, a.Pruned
			if a.Output >= 0 {
				h.Links = []link{{ID: fmt.Sprintf("out-%d", a.Output), Label: fmt.Sprintf("to %d", a.Output)}}
			}
		}
		p.Before[i] = h
	}
	summaryAt := -1
	if oc.res != nil {
		summaryAt = oc.res.SummaryIndex
	}
	names := toolNames(oc.out)
	p.After = make([]htmlMessage, len(oc.out))
	for i, m := range oc.out {
		h := newHTMLMessage(m, "out", i, cleanText)
		h.Tool, h.Tokens, h.Links = redact.String(names[i]), oc.tc.CountMessage(m), sources[i]
		h.Fate = "kept"
		switch {
		case i == summaryAt:
			h.Fate, h.Links = "summary", nil // every folded message links here
		case len(sources[i]) > 0:
			h.Fate = fateOf(r.Messages, sources[i])
		}
		p.After[i] = h
	}
	p.Facts, p.Summary = summaryBlocks(r.Summary)
	return p
}

// fateOf is the fate an output message shows: that of the input message
// it came from (the first, when a seam merged two).
func fateOf(ms []messageReport, from []link) string {
	var i int
	if _, err := fmt.Sscanf(from[0].ID, "in-%d", &i); err == nil && i >= 0 && i < len(ms) {
		return ms[i].Fate
	}
	return "kept"
}

// newHTMLMessage is m's text, calls and call id, cleaned; side is "in" or
// "out".
func newHTMLMessage(m compact.Message, side string, i int, clean func(string) string) htmlMessage {
	h := htmlMessage{ID: fmt.Sprintf("%s-%d", side, i), Index: i, Role: clean(m.Role), CallID: clean(m.ToolCallID)}
	h.Text = clean(compact.Text(m))
	if len(h.Text) > collapseChars {
		h.Preview = cutString(h.Text, previewChars)
	}
	for _, c := range m.ToolCalls {
		h.Calls = append(h.Calls, clean(c.Function.Name+"("+c.Function.Arguments+")"))
	}
	if m.FunctionCall != nil {
		h.Calls = append(h.Calls, clean(m.FunctionCall.Name+"("+m.FunctionCall.Arguments+")"))
	}
	return h
}

// cutString cuts s to at most n bytes on a rune boundary, with an
// ellipsis.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// settingChars bounds a setting's value on the page: a focus topic is
// the user's text, and may be long.
const settingChars = 200

// redactSettings redacts the settings' values and cuts long ones.
func redactSettings(s []pageSetting) []pageSetting {
	out := make([]pageSetting, len(s))
	for i, v := range s {
		out[i] = pageSetting{Name: v.Name, Value: cutString(clean(v.Value), settingChars)}
	}
	return out
}

// hashSource is the CSP source that allows exactly the inline text s.
func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// renderPage writes p as HTML.
func renderPage(p *page) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(64 << 10)
	if err := pageTemplate.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// htmlPage renders the page for oc, titled after its input.
func htmlPage(oc *outcome, r report, title string) ([]byte, error) {
	return renderPage(newPage(oc, r, title))
}

// block is one block of a rendered summary: a heading, a list item (at a
// depth), a quote or a paragraph.
type block struct {
	Kind  string // "h", "li", "quote", "p"
	Depth int
	Text  string
}

// summaryBlocks renders the summary's Markdown subset (the extractive
// summarizer's headings, lists and quotes; another summarizer's text reads
// as paragraphs) into blocks: the "Facts" section apart, the rest in
// order.
func summaryBlocks(summary string) (facts, rest []block) {
	inFacts := false
	for _, line := range strings.Split(redact.StripControl(summary), "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		var b block
		switch {
		case strings.HasPrefix(t, "#"):
			b = block{Kind: "h", Text: strings.TrimSpace(strings.TrimLeft(t, "#"))}
			inFacts = strings.EqualFold(b.Text, "facts")
			if inFacts {
				continue
			}
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			indent := len(line) - len(strings.TrimLeft(line, " "))
			b = block{Kind: "li", Depth: min(indent/2, 4), Text: t[2:]}
		case strings.HasPrefix(t, ">"):
			b = block{Kind: "quote", Text: strings.TrimSpace(t[1:])}
		default:
			b = block{Kind: "p", Text: t}
		}
		if inFacts {
			facts = append(facts, b)
		} else {
			rest = append(rest, b)
		}
	}
	return facts, rest
}
