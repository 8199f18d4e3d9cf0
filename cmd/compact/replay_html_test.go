package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replay -html draws a chart per setting: a point per request, a marker
// per compaction of each kind the JSON counts, the threshold and the
// window; the page holds no script and only its own markup.
func TestReplayHTMLChartsEverySetting(t *testing.T) {
	page := filepath.Join(t.TempDir(), "replay.html")
	r := runCLI(t, "", append(append([]string{}, replayArgs...), "-json", "-html", page)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	var rep replayReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))

	got := readFile(t, page)
	checkMarkup(t, got, "svg", "text", "line", "polygon", "rect") // the charts'
	assert.NotContains(t, got, "<script")

	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(got, -1)
	require.Len(t, svgs, len(rep.Settings), "a chart per setting")
	total := 0
	points := regexp.MustCompile(`class="sent" fill="[^"]*" points="([^"]*)"`)
	for i, s := range rep.Settings {
		want := 0
		for _, n := range s.Compactions {
			want += n
		}
		assert.Equal(t, want, strings.Count(svgs[i], `class="compaction"`), "%s: a marker per compaction", s.Name)
		total += want
		for kind, n := range s.Compactions {
			assert.Equal(t, n, strings.Count(svgs[i], `data-kind="`+kind+`"`), "%s: %s", s.Name, kind)
		}
		m := points.FindStringSubmatch(svgs[i])
		require.Len(t, m, 2, "%s: the area of tokens sent", s.Name)
		assert.Len(t, strings.Fields(m[1]), s.Requests+2, "%s: a point per request", s.Name)
		thresholds := 1
		if s.Name == settingDropOldest {
			thresholds = 0 // it drops at the window
		}
		assert.Equal(t, thresholds, strings.Count(svgs[i], `class="threshold"`), s.Name)
		assert.Equal(t, 1, strings.Count(svgs[i], `class="window"`))
	}
	assert.Positive(t, total, "the replay compacts, so the charts mark something")
}
