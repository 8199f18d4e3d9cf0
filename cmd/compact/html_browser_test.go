package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/sharedtest"
)

// hostile is markup, script and invisible characters a transcript might
// carry; each script sets window.__canary, which stays undefined while
// only the page's own script runs.
// Odd n gives a long message, which the page folds.
func hostile(n int) string {
	filler := ""
	if n%2 == 1 {
		filler = strings.Repeat("filler words to give the compaction something to fold. ", 30)
	}
	return fmt.Sprintf(`<script>window.__canary=%[1]d</script></script><script>window.__canary=%[1]d</script>`+
		`<img src=x onerror="window.__canary=%[1]d"><a href="javascript:window.__canary=%[1]d">click</a>`+
		`<svg onload="window.__canary=%[1]d"></svg><style>body{display:none}</style>`+
		`<iframe src="javascript:parent.__canary=%[1]d"></iframe>"'><b onmouseover="window.__canary=%[1]d">bold</b>`+
		"<!-- a comment --> ]]> {{.CSP}} \x1b[31mred\x1b[0m \u202eevil\u202c \x07 \x00 end of message %[1]d "+filler, n)
}

// hostileTranscript is a history whose every message, tool name, call id
// and argument is hostile.
func hostileTranscript(t *testing.T, dir string) string {
	t.Helper()
	var msgs []map[string]any
	msgs = append(msgs, map[string]any{"role": "system", "content": hostile(0)})
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf(`call_%d"><script>window.__canary=%d</script>`, i, i)
		msgs = append(msgs,
			map[string]any{"role": "user", "content": hostile(10 * i)},
			map[string]any{"role": "assistant", "content": hostile(10*i + 1), "tool_calls": []map[string]any{{
				"id": id, "type": "function",
				"function": map[string]any{"name": `<img src=x onerror="window.__canary=2">`, "arguments": `{"cmd":"` + strings.ReplaceAll(hostile(10*i+2), `"`, `\"`) + `"}`},
			}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": hostile(10*i + 3)},
			map[string]any{"role": "assistant", "content": hostile(10*i + 4)},
		)
	}
	data, err := json.Marshal(msgs)
	require.NoError(t, err)
	return writeFile(t, dir, "hostile.json", string(data))
}

// pageChecks is what the page says about itself.
type pageChecks struct {
	Canary  string   `json:"canary"`  // typeof window.__canary
	Scripts int      `json:"scripts"` // script elements
	Ready   string   `json:"ready"`   // set by the page's own script
	Before  []string `json:"before"`  // the fates of the input messages shown
	After   int      `json:"after"`   // output messages shown
	Bad     []string `json:"bad"`     // elements, attributes or links the page never writes
	Hidden  bool     `json:"hidden"`  // the body is not displayed
}

// checkPage reads the page from inside: which scripts ran, which elements
// and attributes exist, the messages and their fates.
const checkPage = `(() => {
  const tags = new Set(["html","head","meta","title","style","body","script","header","h1","h2","h3","p","button",
    "section","div","dl","dt","dd","a","ul","li","span","main","article","details","summary","pre","blockquote",
    "table","thead","tbody","tr","th","td"]);
  const attrs = new Set(["lang","charset","http-equiv","content","name","class","id","href","type","data-index","data-fate","data-ready"]);
  const bad = [];
  for (const el of document.querySelectorAll("*")) {
    if (!tags.has(el.localName)) bad.push("element " + el.localName);
    for (const a of el.attributes) if (!attrs.has(a.name)) bad.push("attribute " + a.name + " on " + el.localName);
    if (el.localName === "a" && !/^#|^[\w.-]+\.html$/.test(el.getAttribute("href"))) bad.push("link " + el.getAttribute("href"));
  }
  return {
    canary: typeof window.__canary,
    scripts: document.scripts.length,
    ready: document.documentElement.getAttribute("data-ready") || "",
    before: Array.from(document.querySelectorAll("#before article.msg"), a => a.dataset.fate),
    after: document.querySelectorAll("#after article.msg").length,
    bad: bad.slice(0, 20),
    hidden: getComputedStyle(document.body).display === "none",
  };
})()`

// The HTML view of a shared transcript and of a hostile one, opened in a
// real browser: it loads without a console error, shows every input
// message with the fate the JSON report gives it, and runs no script but
// its own; the batch index loads cleanly and links every page.
func TestHTMLViewInABrowser(t *testing.T) {
	path := findBrowser(t)
	files := sharedtest.Files(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	require.NoError(t, os.Mkdir(in, 0o755))
	hostileTranscript(t, in)
	shared := filepath.Join(files[0], "..", "openhands__ponylang__ponyc-4595.json")
	writeFile(t, in, "shared.json", readFile(t, shared))

	res := runCLI(t, "", "-force", "-window", "4000", "-focus", hostile(99), "-o", filepath.Join(dir, "out"),
		"-html", filepath.Join(dir, "html"), "-json-report", filepath.Join(dir, "report.json"), in)
	require.Equal(t, exitOK, res.code, res.stderr)
	var reports []report
	require.NoError(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "report.json"))), &reports))
	require.Len(t, reports, 2)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := startBrowser(t, path)
	tb, err := b.openTab(ctx)
	require.NoError(t, err)

	for _, r := range reports {
		name := strings.TrimSuffix(filepath.Base(r.File), ".json")
		t.Run(name, func(t *testing.T) {
			errs, err := tb.load(ctx, "file://"+filepath.Join(dir, "html", name+".html"))
			require.NoError(t, err)
			require.Empty(t, errs, "console errors")
			var got pageChecks
			require.NoError(t, tb.eval(ctx, checkPage, &got))
			require.Equal(t, "undefined", got.Canary, "a script from the transcript ran")
			require.Equal(t, 1, got.Scripts, "the page's own script only")
			require.Equal(t, "1", got.Ready, "the page's own script ran (its hash matches the policy)")
			require.Empty(t, got.Bad, "markup from the transcript")
			require.False(t, got.Hidden, "a style from the transcript applied")
			want := make([]string, len(r.Messages))
			for i, m := range r.Messages {
				want[i] = m.Fate
			}
			require.Equal(t, want, got.Before, "the input messages and their fates, as the JSON report gives them")
			require.Equal(t, r.AfterMessages, got.After)
		})
	}
	// COMPACT_SCREENSHOT=docs/html-view.png keeps a picture of the view
	// of a shared transcript, for the README.
	if shot := os.Getenv("COMPACT_SCREENSHOT"); shot != "" {
		page := filepath.Join(dir, "view.html")
		r := runCLI(t, "", "-force", "-window", "8000", "-o", filepath.Join(dir, "view.json"), "-html", page, shared)
		require.Equal(t, exitOK, r.code, r.stderr)
		_, err := tb.load(ctx, "file://"+page)
		require.NoError(t, err)
		png, err := tb.screenshot(ctx, 1400, 1100, 0.6)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(shot, png, 0o644))
	}
	t.Run("index", func(t *testing.T) {
		errs, err := tb.load(ctx, "file://"+filepath.Join(dir, "html", "index.html"))
		require.NoError(t, err)
		require.Empty(t, errs, "console errors")
		var links []string
		require.NoError(t, tb.eval(ctx, `Array.from(document.querySelectorAll("a"), a => a.getAttribute("href"))`, &links))
		require.Equal(t, []string{"hostile.html", "shared.html"}, links)
		var got pageChecks
		require.NoError(t, tb.eval(ctx, checkPage, &got))
		require.Equal(t, 0, got.Scripts)
		require.Empty(t, got.Bad)
	})
}

// replay -html in a wide browser window: each chart is as wide as its
// card, not the 720 pixels it is drawn in, and no compaction marker rises
// above the window line.
func TestReplayChartFillsItsCardInABrowser(t *testing.T) {
	path := findBrowser(t)
	page := filepath.Join(t.TempDir(), "replay.html")
	r := runCLI(t, "", append(append([]string{}, replayArgs...), "-html", page)...)
	require.Equal(t, exitOK, r.code, r.stderr)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tb, err := startBrowser(t, path).openTab(ctx)
	require.NoError(t, err)
	require.NoError(t, tb.call(ctx, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil))
	errs, err := tb.load(ctx, "file://"+page)
	require.NoError(t, err)
	require.Empty(t, errs, "console errors")
	var charts []struct {
		Fill       float64 `json:"fill"`       // the chart's width over its card's content width
		WindowTop  float64 `json:"windowTop"`  // the window line's top, in pixels
		MarkersTop float64 `json:"markersTop"` // the highest marker's top
	}
	require.NoError(t, tb.eval(ctx, `Array.from(document.querySelectorAll(".chart"), card => {
  const svg = card.querySelector("svg"), cs = getComputedStyle(card);
  const inner = card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const tops = Array.from(svg.querySelectorAll("line.compaction"), l => l.getBoundingClientRect().top);
  return {fill: svg.getBoundingClientRect().width / inner,
    windowTop: svg.querySelector("line.window").getBoundingClientRect().top,
    markersTop: tops.length ? Math.min(...tops) : 1e9};
})`, &charts))
	require.Len(t, charts, 3, "a chart per setting")
	for i, c := range charts {
		require.InDelta(t, 1, c.Fill, 0.02, "chart %d fills its card", i)
		require.GreaterOrEqual(t, c.MarkersTop, c.WindowTop-0.5, "chart %d: no marker above the window line", i)
	}
}
