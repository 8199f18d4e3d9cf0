package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

// A chart of request sizes over a replayed conversation, as inline SVG
// for an HTML page: per request the tokens sent, the part read from the
// prompt cache, and the compactions done before it, marked by kind, under
// the compaction threshold and the window. Drawn by our own code: no
// script, no font, nothing fetched.

// chartPoint is one request of a replay.
type chartPoint struct {
	Sent   int // tokens sent
	Cached int // of those, tokens read from the prompt cache
	// Compaction is the kind of compaction done just before this request
	// ("summary", "prune", "drop", ...); "" when there was none.
	Compaction string
}

// chartSeries is what one chart draws: one setting's replay.
type chartSeries struct {
	Title     string
	Points    []chartPoint
	Threshold int // tokens at which compaction triggers; 0 draws no line
	Window    int // the context window; 0 draws no line
}

// The chart's geometry, in SVG user units: a width that fits a page
// column beside another, and margins that hold the axis labels.
const (
	chartWidth  = 720
	chartHeight = 260
	chartLeft   = 64 // room for "128,000"
	chartRight  = 16
	chartTop    = 28 // room for the title
	chartBottom = 44 // room for the x labels and the legend
	chartYTicks = 4  // horizontal grid lines above zero
	chartXTicks = 6  // at most this many request labels
)

// kindColors colour compaction markers by kind, in order of the kinds'
// names; a palette a reader can tell apart (Okabe and Ito's, for colour
// blindness).
var kindColors = [...]string{"#d55e00", "#0072b2", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000"}

// writeChart writes s as an <svg> element.
func writeChart(w io.Writer, s chartSeries) error {
	var b bytes.Buffer
	plotW := float64(chartWidth - chartLeft - chartRight)
	plotH := float64(chartHeight - chartTop - chartBottom)
	top := max(s.Window, s.Threshold, 1)
	for _, p := range s.Points {
		top = max(top, p.Sent)
	}
	// The plot's top is the largest value drawn (the window, or a request
	// over it), so every value is inside the axes and the plot fills them.
	yMax := float64(top)
	y := func(v int) float64 { return float64(chartTop) + plotH - plotH*float64(max(v, 0))/yMax }
	n := len(s.Points)
	x := func(i int) float64 {
		if n <= 1 {
			return float64(chartLeft) + plotW/2
		}
		return float64(chartLeft) + plotW*float64(i)/float64(n-1)
	}

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" font-family="system-ui,sans-serif" font-size="11">`,
		chartWidth, chartHeight, chartWidth, chartHeight)
	b.WriteString(`<title>`)
	escapeXML(&b, s.Title)
	b.WriteString(`</title>`)
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="13" font-weight="600">`, chartLeft)
	escapeXML(&b, s.Title)
	b.WriteString(`</text>`)

	// The grid and the y axis's labels.
	for k := 0; k <= chartYTicks; k++ {
		v := int(math.Round(yMax * float64(k) / chartYTicks))
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s" stroke="#e3e3ea"/>`, chartLeft, chartWidth-chartRight, num(y(v)), num(y(v)))
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" fill="#555">%s</text>`, chartLeft-6, num(y(v)+4), thousands(v))
	}
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" fill="#555">no requests</text></svg>`, num(float64(chartLeft)+plotW/2), num(float64(chartTop)+plotH/2))
		_, err := w.Write(b.Bytes())
		return err
	}

	// Tokens sent, and the part of them read from the cache, as areas.
	area := func(class, fill string, v func(chartPoint) int) {
		fmt.Fprintf(&b, `<polygon class="%s" fill="%s" points="%s,%s`, class, fill, num(x(0)), num(y(0)))
		for i, p := range s.Points {
			fmt.Fprintf(&b, ` %s,%s`, num(x(i)), num(y(v(p))))
		}
		fmt.Fprintf(&b, ` %s,%s"/>`, num(x(n-1)), num(y(0)))
	}
	area("sent", "#bcd3ee", func(p chartPoint) int { return p.Sent })
	area("cached", "#5b8fd0", func(p chartPoint) int { return min(p.Cached, p.Sent) })

	// Compactions, one marker each, coloured by kind. A marker is no
	// request size: it stops at the window line, so it never reads as a
	// request over the window.
	colour := kindPalette(s.Points)
	markTop := top
	if s.Window > 0 {
		markTop = s.Window
	}
	for i, p := range s.Points {
		if p.Compaction == "" {
			continue
		}
		fmt.Fprintf(&b, `<line class="compaction" data-kind="%s" x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="1.5"><title>`,
			attr(p.Compaction), num(x(i)), num(x(i)), num(y(markTop)), num(y(0)), colour[p.Compaction])
		escapeXML(&b, fmt.Sprintf("request %d: %s", i+1, p.Compaction))
		b.WriteString(`</title></line>`)
	}

	// The threshold and the window.
	limit := func(class string, v int, stroke, dash string) {
		if v <= 0 {
			return
		}
		fmt.Fprintf(&b, `<line class="%s" x1="%d" x2="%d" y1="%s" y2="%s" stroke="%s" stroke-dasharray="%s"/>`,
			class, chartLeft, chartWidth-chartRight, num(y(v)), num(y(v)), stroke, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" fill="%s">%s %s</text>`,
			chartWidth-chartRight, num(y(v)-3), stroke, class, thousands(v))
	}
	limit("threshold", s.Threshold, "#b06000", "5 3")
	limit("window", s.Window, "#a32615", "2 2")

	// The x axis: request numbers, and the legend.
	step := max(1, (n+chartXTicks-1)/chartXTicks)
	for i := 0; i < n; i += step {
		fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle" fill="#555">%d</text>`, num(x(i)), chartHeight-chartBottom+14, i+1)
	}
	lx, ly := chartLeft, chartHeight-10
	legend := func(fill, label string) {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">`, lx, ly-9, fill, lx+14, ly)
		escapeXML(&b, label)
		b.WriteString(`</text>`)
		lx += 24 + 7*len([]rune(label))
	}
	legend("#bcd3ee", "tokens sent")
	legend("#5b8fd0", "read from cache")
	for _, k := range sortedKinds(colour) {
		legend(colour[k], k)
	}
	b.WriteString(`</svg>`)
	_, err := w.Write(b.Bytes())
	return err
}

// kindColours are the colours of the compaction kinds replay reports, the
// same on every chart; another kind takes the next free colour of
// kindColors.
var kindColours = map[string]string{"summary": "#0072b2", "prune": "#e69f00", "fallback": "#cc79a7", "drop": "#d55e00"}

// kindPalette gives each compaction kind in points a colour: its own, or
// the free ones in order of the kinds' names.
func kindPalette(points []chartPoint) map[string]string {
	colour := map[string]string{}
	for _, p := range points {
		if p.Compaction != "" {
			colour[p.Compaction] = kindColours[p.Compaction]
		}
	}
	used := map[string]bool{}
	for _, c := range colour {
		used[c] = true
	}
	next := 0
	for _, k := range sortedKinds(colour) {
		if colour[k] != "" {
			continue
		}
		for next < len(kindColors)-1 && used[kindColors[next]] {
			next++
		}
		colour[k] = kindColors[next]
		used[kindColors[next]] = true
	}
	return colour
}

func sortedKinds(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// num writes a coordinate with one decimal at most.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// escapeXML writes s escaped as XML character data; characters XML cannot
// hold become U+FFFD.
func escapeXML(b *bytes.Buffer, s string) {
	_ = xml.EscapeText(b, []byte(s)) // a bytes.Buffer never fails
}

// attr is s escaped for a double-quoted attribute value.
func attr(s string) string {
	var b bytes.Buffer
	escapeXML(&b, s)
	return b.String()
}
