package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// svgElement is one element of a chart, with its attributes and text.
type svgElement struct {
	Name  string
	Attrs map[string]string
	Text  string
}

// parseSVG decodes a chart and fails t unless it is well-formed XML with
// one <svg> root.
func parseSVG(t *testing.T, data []byte) []svgElement {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var out []svgElement
	var stack []int
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed XML:\n%s", data)
		switch tok := tok.(type) {
		case xml.StartElement:
			e := svgElement{Name: tok.Name.Local, Attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.Attrs[a.Name.Local] = a.Value
			}
			stack = append(stack, len(out))
			out = append(out, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].Text += string(tok)
			}
		}
	}
	require.NotEmpty(t, out)
	require.Equal(t, "svg", out[0].Name)
	return out
}

func byClass(es []svgElement, class string) []svgElement {
	var out []svgElement
	for _, e := range es {
		if e.Attrs["class"] == class {
			out = append(out, e)
		}
	}
	return out
}

// chartReplay is a replay's shape: growth, a summary, growth, a pruning.
func chartReplay() chartSeries {
	var pts []chartPoint
	sent := 2000
	for i := range 40 {
		p := chartPoint{Sent: sent, Cached: sent * 9 / 10}
		switch i {
		case 15:
			p.Compaction, p.Sent, p.Cached = "summary", 9000, 1500
		case 30:
			p.Compaction, p.Sent, p.Cached = "prune", p.Sent/2, p.Sent/4
		}
		sent = p.Sent + 2500
		pts = append(pts, p)
	}
	return chartSeries{Title: "default", Points: pts, Threshold: 90_000, Window: 128_000}
}

// A chart marks every compaction by its kind, with one colour per kind,
// draws the threshold and the window, and keeps every point inside the
// plot.
func TestChartMarksCompactionsAndLimits(t *testing.T) {
	s := chartReplay()
	var b bytes.Buffer
	require.NoError(t, writeChart(&b, s))
	es := parseSVG(t, b.Bytes())

	marks := byClass(es, "compaction")
	require.Len(t, marks, 2)
	require.Equal(t, "summary", marks[0].Attrs["data-kind"])
	require.Equal(t, "prune", marks[1].Attrs["data-kind"])
	require.NotEqual(t, marks[0].Attrs["stroke"], marks[1].Attrs["stroke"], "one colour per kind")
	require.Less(t, coord(t, marks[0].Attrs["x1"]), coord(t, marks[1].Attrs["x1"]), "markers in request order")

	threshold, window := byClass(es, "threshold"), byClass(es, "window")
	require.Len(t, threshold, 1)
	require.Len(t, window, 1)
	require.Greater(t, coord(t, threshold[0].Attrs["y1"]), coord(t, window[0].Attrs["y1"]), "the threshold is drawn below the window")

	for _, class := range []string{"sent", "cached"} {
		areas := byClass(es, class)
		require.Len(t, areas, 1)
		pts := strings.Fields(areas[0].Attrs["points"])
		require.Len(t, pts, len(s.Points)+2, "a point per request, and the base line's two ends")
		for _, p := range pts {
			xy := strings.Split(p, ",")
			require.Len(t, xy, 2)
			require.True(t, coord(t, xy[0]) >= chartLeft && coord(t, xy[0]) <= chartWidth-chartRight, "x %s in the plot", xy[0])
			require.True(t, coord(t, xy[1]) >= chartTop && coord(t, xy[1]) <= chartHeight-chartBottom, "y %s in the plot", xy[1])
		}
	}
}

// A request larger than the window raises the scale instead of leaving
// the plot; a cached count above the sent one is drawn as the sent one.
func TestChartScalesToTheLargestRequest(t *testing.T) {
	s := chartSeries{Points: []chartPoint{{Sent: 10}, {Sent: 500_000, Cached: 900_000}}, Window: 1000}
	var b bytes.Buffer
	require.NoError(t, writeChart(&b, s))
	es := parseSVG(t, b.Bytes())
	sent := strings.Fields(byClass(es, "sent")[0].Attrs["points"])
	cached := strings.Fields(byClass(es, "cached")[0].Attrs["points"])
	require.Equal(t, sent[2], cached[2], "cached is clamped to sent")
	y := coord(t, strings.Split(sent[2], ",")[1])
	require.GreaterOrEqual(t, y, float64(chartTop))
}

// Titles and kinds come from the caller (a setting's name, a file name):
// they are escaped, so nothing in them becomes markup.
func TestChartEscapesTitlesAndKinds(t *testing.T) {
	evil := `<script>alert(1)</script>" onload="x` + "\x00\x1b"
	s := chartSeries{Title: evil, Points: []chartPoint{{Sent: 5}, {Sent: 6, Compaction: evil}}, Window: 10}
	var b bytes.Buffer
	require.NoError(t, writeChart(&b, s))
	require.NotContains(t, b.String(), "<script")
	require.NotContains(t, b.String(), `" onload`)
	es := parseSVG(t, b.Bytes())
	for _, e := range es {
		require.NotEqual(t, "script", e.Name)
		_, ok := e.Attrs["onload"]
		require.False(t, ok)
	}
	require.Contains(t, es[1].Text, "<script>", "the title reads as text")
}

// A replay with no requests is still a chart, one that says so.
func TestChartOfNoRequests(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, writeChart(&b, chartSeries{Title: "empty", Window: 8000}))
	es := parseSVG(t, b.Bytes())
	require.Contains(t, es[len(es)-1].Text, "no requests")
}

func coord(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
	return v
}

// FuzzChart: any series gives well-formed SVG whose points are finite and
// inside the plot, and whose text never becomes markup.
func FuzzChart(f *testing.F) {
	f.Add("t", "summary", 100, 50, 3, 90, 128)
	f.Add("<b>", "</svg><script>", -5, 900, 0, 0, 0)
	f.Fuzz(func(t *testing.T, title, kind string, sent, cached, n, threshold, window int) {
		n = min(max(n, 0), 50)
		s := chartSeries{Title: title, Threshold: threshold, Window: window}
		for i := range n {
			p := chartPoint{Sent: sent * (i + 1), Cached: cached}
			if i%3 == 1 {
				p.Compaction = kind
			}
			s.Points = append(s.Points, p)
		}
		var b bytes.Buffer
		require.NoError(t, writeChart(&b, s))
		es := parseSVG(t, b.Bytes())
		for _, e := range es {
			require.NotEqual(t, "script", e.Name)
			if e.Name == "polygon" {
				for _, p := range strings.Fields(e.Attrs["points"]) {
					xy := strings.Split(p, ",")
					require.Len(t, xy, 2)
					y := coord(t, xy[1])
					require.True(t, y >= chartTop-0.1 && y <= chartHeight-chartBottom+0.1, "y %v", y)
				}
			}
		}
	})
}

// The plot's top is the largest value drawn, so the plot fills its axes,
// and a compaction's marker stops at the window line: a summary's marker
// never rises above the window, where it would read as a request over it.
func TestChartFillsItsAxesAndKeepsMarkersUnderTheWindow(t *testing.T) {
	s := chartReplay()
	s.Threshold, s.Window = 45_000, 60_000 // the window above every request
	var b bytes.Buffer
	require.NoError(t, writeChart(&b, s))
	es := parseSVG(t, b.Bytes())
	window := byClass(es, "window")
	require.Len(t, window, 1)
	wy := coord(t, window[0].Attrs["y1"])
	require.InDelta(t, float64(chartTop), wy, 0.1, "the window, the largest value, is the top of the axes")
	top := byClass(es, "grid")
	require.NotEmpty(t, top)
	require.InDelta(t, float64(chartTop), coord(t, top[len(top)-1].Attrs["y1"]), 0.1, "the top grid line is the plot's top")
	marks := byClass(es, "compaction")
	require.Len(t, marks, 2)
	for _, m := range marks {
		require.GreaterOrEqual(t, coord(t, m.Attrs["y1"]), wy-0.1, "a %s marker stays under the window line", m.Attrs["data-kind"])
	}

	// A request over the window raises the plot's top; the markers still
	// stop at the window line.
	s.Points[20].Sent = 80_000
	b.Reset()
	require.NoError(t, writeChart(&b, s))
	es = parseSVG(t, b.Bytes())
	wy = coord(t, byClass(es, "window")[0].Attrs["y1"])
	require.Greater(t, wy, float64(chartTop)+1)
	for _, m := range byClass(es, "compaction") {
		require.InDelta(t, wy, coord(t, m.Attrs["y1"]), 0.1)
	}
}
