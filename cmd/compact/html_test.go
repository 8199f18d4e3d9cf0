package main

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// pageTags are the elements the page and the index write; anything else
// in a page came from a transcript.
var pageTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "script": true,
	"header": true, "h1": true, "h2": true, "h3": true, "p": true, "button": true, "section": true, "div": true,
	"dl": true, "dt": true, "dd": true, "a": true, "ul": true, "li": true, "span": true, "main": true,
	"article": true, "details": true, "summary": true, "pre": true, "blockquote": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)`)

// checkMarkup fails t when page holds an element the page (with the
// extra ones named) never writes, a second script, or a character that
// reorders or hides text.
func checkMarkup(t *testing.T, page string, extra ...string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		tag := strings.ToLower(m[2])
		require.True(t, pageTags[tag] || slices.Contains(extra, tag), "element <%s> is not the page's", m[2])
	}
	require.LessOrEqual(t, strings.Count(page, "<script"), 1, "one script, the page's own")
	require.NotContains(t, page, "\u202e")
	require.NotContains(t, page, "\x1b")
	require.NotContains(t, page, "\x00")
}

// A page shows every message of both sides, folds long ones, and allows
// by hash exactly its own style and script.
func TestHTMLPageShowsEveryMessage(t *testing.T) {
	dir := t.TempDir()
	page, rep := filepath.Join(dir, "view.html"), filepath.Join(dir, "rep.json")
	r := runCLI(t, "", "-force", "-window", "2000", "-o", filepath.Join(dir, "out.json"), "-json-report", rep, "-html", page, codingSession)
	require.Equal(t, exitOK, r.code, r.stderr)
	got, want := readFile(t, page), readReport(t, rep)
	checkMarkup(t, got)
	assert.Equal(t, want.BeforeMessages+want.AfterMessages, strings.Count(got, `<article class="msg`))
	assert.Equal(t, 1, strings.Count(got, `data-fate="summary"`))
	// The page is long: a failure says what is missing, not the page.
	csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(got)
	require.Len(t, csp, 2, "a Content-Security-Policy")
	policy := html.UnescapeString(csp[1])
	assert.Contains(t, policy, "script-src "+hashSource(pageJS)+";")
	assert.Contains(t, policy, "style-src "+hashSource(pageCSS)+";")
	assert.Contains(t, policy, "default-src 'none'")
	for _, want := range []string{
		"<script>" + pageJS + "</script>", // the script hashed is the script sent
		"<style>" + pageCSS + "</style>",
		"Facts index",
	} {
		assert.True(t, strings.Contains(got, want), "the page holds %q", want)
	}
}

// Markup, scripts, control characters and bidirectional overrides in a
// transcript reach the page as text; the page is written with the output
// and the report, or not at all.
func TestHTMLEscapesHostileContent(t *testing.T) {
	dir := t.TempDir()
	in := hostileTranscript(t, dir)
	page := filepath.Join(dir, "view.html")
	r := runCLI(t, "", "-force", "-window", "4000", "-focus", hostile(7), "-o", filepath.Join(dir, "out.json"), "-html", page, in)
	require.Equal(t, exitOK, r.code, r.stderr)
	got := readFile(t, page)
	checkMarkup(t, got)
	assert.True(t, strings.Contains(got, "&lt;script&gt;window.__canary="), "the markup is there, as text")

	bad := writeFile(t, dir, "bad.json", `[{"role":"tool","tool_call_id":"x","content":"orphan"}]`)
	page2 := filepath.Join(dir, "none.html")
	r = runCLI(t, "", "-o", filepath.Join(dir, "out2.json"), "-html", page2, bad)
	assert.Equal(t, exitError, r.code)
	assert.NoFileExists(t, page2)
}

// A batch writes a page per file and an index linking them; -html must
// then name a directory.
func TestHTMLOfADirectory(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.Mkdir(in, 0o755))
	writeFile(t, in, "a.json", readFile(t, codingSession))
	writeFile(t, in, "b.jsonl", `{"role":"user","content":"hi"}`+"\n"+`{"role":"assistant","content":"hello"}`+"\n")
	html := filepath.Join(dir, "html")
	r := runCLI(t, "", "-force", "-window", "2000", "-o", filepath.Join(dir, "out"), "-html", html, in)
	require.Equal(t, exitOK, r.code, r.stderr)
	index := readFile(t, filepath.Join(html, "index.html"))
	checkMarkup(t, index)
	for _, page := range []string{"a.html", "b.html"} {
		assert.True(t, strings.Contains(index, `href="`+page+`"`), "the index links %s", page)
		checkMarkup(t, readFile(t, filepath.Join(html, page)))
	}

	r = runCLI(t, "", "-o", filepath.Join(dir, "out"), "-html", filepath.Join(dir, "view.html"), in)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "give a directory")
}

// pageOf renders the page of msgs compacted at a small window.
func pageOf(t testing.TB, msgs []compact.Message) string {
	o := &options{threshold: compact.DefaultThreshold, summarizer: "extractive", timeout: defaultSummaryTimeout, set: map[string]bool{}}
	e, err := newEngine(o, "extractive", discardLogger())
	require.NoError(t, err)
	oc, err := e.compactOne(t.Context(), &transcript{msgs: msgs, format: "array"}, 2000, true)
	if err != nil {
		return ""
	}
	data, err := htmlPage(oc, newReport(oc), "fuzz")
	require.NoError(t, err)
	return string(data)
}

// FuzzHTMLPage: whatever a transcript's texts, tool names and ids hold,
// the page holds only its own elements and one script.
func FuzzHTMLPage(f *testing.F) {
	f.Add("<script>x</script>", "<img src=x onerror=y>", "\u202e\x1b[1m</pre></details>")
	f.Add("## Facts\n- </p><b>", "a&b", `"><svg onload=1>`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		msgs := []compact.Message{
			{Role: compact.RoleSystem, Content: a},
			{Role: compact.RoleUser, Content: b + strings.Repeat(" word", 300)},
			{Role: compact.RoleAssistant, Content: c, ToolCalls: []openai.ToolCall{{ID: b, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: a, Arguments: c}}}},
			{Role: compact.RoleTool, ToolCallID: b, Content: a + strings.Repeat(" output", 300)},
			{Role: compact.RoleAssistant, Content: "## " + a + "\n- " + b + "\n> " + c},
			{Role: compact.RoleUser, Content: c},
			{Role: compact.RoleAssistant, Content: "ok " + a},
		}
		if compact.Validate(msgs) != nil {
			return
		}
		if page := pageOf(t, msgs); page != "" {
			checkMarkup(t, page)
		}
	})
}

// The goal: the view of the largest shared transcript is at most three
// times its size.
func TestHTMLViewOfTheLargestTranscriptIsAtMostThreeTimesItsSize(t *testing.T) {
	largest, size := largestShared(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "view.html")
	r := runCLI(t, "", "-force", "-window", "8000", "-o", filepath.Join(dir, "out.json"), "-html", page, largest)
	require.Equal(t, exitOK, r.code, r.stderr)
	fi, err := os.Stat(page)
	require.NoError(t, err)
	t.Logf("%s: %d bytes, its view %d bytes (%.2fx)", filepath.Base(largest), size, fi.Size(), float64(fi.Size())/float64(size))
	assert.LessOrEqual(t, fi.Size(), 3*size)
}

// largestShared is the largest shared transcript and its size.
func largestShared(t testing.TB) (string, int64) {
	var path string
	var size int64
	for _, f := range sharedtest.Files(t) {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			path, size = f, fi.Size()
		}
	}
	return path, size
}

// BenchmarkHTMLView writes the view of the largest shared transcript: the
// whole command (read, compact, write the output and the page), and the
// page alone. The goal is 0.5 s for the command.
func BenchmarkHTMLView(b *testing.B) {
	largest, _ := largestShared(b)
	dir := b.TempDir()
	b.Run("command", func(b *testing.B) {
		for b.Loop() {
			r := runCLI(b, "", "-force", "-window", "8000", "-o", filepath.Join(dir, "out.json"), "-html", filepath.Join(dir, "view.html"), largest)
			require.Equal(b, exitOK, r.code, r.stderr)
		}
	})
	b.Run("page", func(b *testing.B) {
		t, err := readTranscriptFile(largest)
		require.NoError(b, err)
		o := &options{threshold: compact.DefaultThreshold, timeout: defaultSummaryTimeout, set: map[string]bool{}}
		e, err := newEngine(o, "extractive", discardLogger())
		require.NoError(b, err)
		oc, err := e.compactOne(b.Context(), t, 8000, true)
		require.NoError(b, err)
		r := newReport(oc)
		for b.Loop() {
			_, err := htmlPage(oc, r, "bench")
			require.NoError(b, err)
		}
	})
}

func readTranscriptFile(path string) (*transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readTranscript(f)
}
