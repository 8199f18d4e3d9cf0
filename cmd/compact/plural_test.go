package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 messages", 1: "1 message", 2: "2 messages", 12345: "12,345 messages"} {
		assert.Equal(t, want, plural(n, "message"))
	}
	assert.Equal(t, "3 summaries", plural(3, "summary"))
	assert.Equal(t, "2 days", plural(2, "day"))
	assert.Equal(t, "1 summary", plural(1, "summary"))
	assert.Equal(t, "2 shortened tool arguments", plural(2, "shortened tool arguments"))
}

// wrongCount is a count of one with a plural noun, or a "(s)" the reader
// has to resolve.
var wrongCount = regexp.MustCompile(`(^|[^\d,.])1 (\w+ )?(messages|tokens|files|requests|conversations|transcripts|lines|problems|bytes|summaries|prunes|results)\b|\w\(s\)`)

// tagsOut turns a page into its text, near enough for reading counts.
var tagsOut = regexp.MustCompile(`<[^>]*>`)

// quoted is what a page quotes from the transcript: the messages and the
// summary. The transcript's own words are not the command's.
var quoted = regexp.MustCompile(`(?s)<article .*?</article>|<section class="summary".*?</section>`)

// pageText is a page's own text, without what it quotes.
func pageText(t *testing.T, path string) string {
	t.Helper()
	return tagsOut.ReplaceAllString(quoted.ReplaceAllString(readFile(t, path), " "), " ")
}

// ownText is a -report block without the summary it quotes.
func ownText(s string) string {
	own, _, _ := strings.Cut(s, "  summary:\n")
	return own
}

// Every count the command prints agrees with its noun: "carried 1
// message", never "1 messages" or "message(s)", in the report, the HTML
// page, a batch's lines and index, and replay's table.
func TestCountsAgreeWithTheirNouns(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	single := runCLI(t, "", "-force", "-window", "2000", "-report", "-explain", "-o", filepath.Join(dir, "out.json"), "-html", page, codingSession)
	require.Equal(t, exitOK, single.code, single.stderr)
	html := pageText(t, page)
	require.Contains(t, single.stderr, "carried     1 earlier user message, verbatim", "the case the issue met: a count of one")
	require.Regexp(t, `carried\s+1 message, `, html, "the page's Fates card")

	in := filepath.Join(dir, "in")
	require.NoError(t, os.Mkdir(in, 0o755))
	writeFile(t, in, "heavy.json", toolHeavy(12))
	batch := runCLI(t, "", "-force", "-report", "-o", filepath.Join(dir, "batch"), "-html", filepath.Join(dir, "pages"), in)
	require.Equal(t, exitOK, batch.code, batch.stderr)
	require.Contains(t, batch.stderr, "compact: 1 file into ")
	index := pageText(t, filepath.Join(dir, "pages", "index.html"))
	require.Contains(t, index, "compact: 1 file")

	replay := runCLI(t, "", "replay", "-window", "6000", "testdata/replay/agent_session.json")
	require.Equal(t, exitOK, replay.code, replay.stderr)
	require.Contains(t, replay.stdout, "replay of 1 conversation, ")

	for name, out := range map[string]string{
		"report": ownText(single.stderr), "page": html, "batch": batch.stderr, "index": index, "replay": replay.stdout + replay.stderr,
	} {
		for _, line := range strings.Split(out, "\n") {
			assert.NotRegexp(t, wrongCount, line, name)
		}
	}
}

// A report whose every count is one reads in the singular.
func TestAReportOfOnesReadsInTheSingular(t *testing.T) {
	r := report{Format: "array", BeforeMessages: 1, AfterMessages: 1, BeforeTokens: 1, AfterTokens: 1, Threshold: 1, Window: 2,
		Compacted: true, SummarizedFrom: 0, SummarizedTo: 0, SummaryTokens: 1, Lifted: -1, Carried: 1, Pruned: 1, PrunedTokens: 1,
		Prunes:  []pruneReport{{Kind: "masked tool result"}},
		Summary: strings.Repeat("line\n", summaryLines+1), Summarizer: "extractive"}
	var b strings.Builder
	r.writeHuman(&b, "x", false)
	for _, want := range []string{
		"before      1 message, 1 token", "after       1 message, 1 token", "threshold   1 token of a 2-token window",
		"(1 token)", "carried     1 earlier user message, verbatim", "pruned      1 message, 1 token reclaimed: 1 masked tool result",
		"… 1 more line (output message 0 has it all)",
	} {
		assert.Contains(t, b.String(), want)
	}
	assert.NotRegexp(t, wrongCount, b.String())
	r.File = "x.json"
	assert.Contains(t, r.line(), "x.json: 1 -> 1 message, 1 -> 1 token")
}

// The Fates card labels its measure (what the messages weighed in the
// input) and gives pruning's saving as the text report and the JSON do:
// two measures, each named, never one figure beside another unlabelled.
func TestTheFatesCardNamesItsMeasures(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.json", toolHeavy(12))
	page, rep := filepath.Join(dir, "page.html"), filepath.Join(dir, "rep.json")
	r := runCLI(t, "", in, "-window", "16000", "-report", "-o", filepath.Join(dir, "out.json"), "-html", page, "-json-report", rep)
	require.Equal(t, exitOK, r.code, r.stderr)
	jr := decodeReport(t, rep)
	reclaimed := plural(int(jr["pruned_tokens"].(float64)), "token")
	pruned := plural(int(jr["pruned"].(float64)), "message")
	require.Contains(t, r.stderr, "pruned      "+pruned+", "+reclaimed+" reclaimed")

	text := pageText(t, page)
	assert.Contains(t, text, "Pruning changed "+pruned+" and reclaimed "+reclaimed+".", "the report's figure, named")
	var inputTokens int
	for _, m := range jr["messages"].([]any) {
		if m := m.(map[string]any); m["fate"] == "pruned" {
			inputTokens += int(m["tokens"].(float64))
		}
	}
	require.NotEqual(t, plural(inputTokens, "token"), reclaimed, "the two measures differ, so each needs its name")
	assert.Regexp(t, `pruned\s+`+pruned+`, `+plural(inputTokens, "input token")+`\b`, text, "the card's figure is the input's, and says so")
}
