package models

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the generated table in doc.go from the data")

// The generated part of doc.go runs from the line after tableHeading to
// the line before the package clause.
const (
	docFile      = "doc.go"
	tableHeading = "// # The table\n"
	packageLine  = "package models\n"
)

// The package documentation shows the table as the data has it: render
// writes the table, the calibration factors, the sources and the other
// spellings, and the test fails when doc.go says anything else. Run
// go test -run TestDocShowsTheTable -update to rewrite doc.go.
func TestDocShowsTheTable(t *testing.T) {
	raw, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, tableHeading)
	end := strings.LastIndex(doc, packageLine)
	if start < 0 || end < start {
		t.Fatalf("%s has no %q heading before %q", docFile, strings.TrimSpace(tableHeading), strings.TrimSpace(packageLine))
	}
	start += len(tableHeading)
	want := render()
	if doc[start:end] == want {
		return
	}
	if *update {
		if err := os.WriteFile(docFile, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the table in %s", docFile)
		return
	}
	t.Errorf("%s does not show the table the data has; run go test -run TestDocShowsTheTable -update\n%s",
		docFile, firstDifference(doc[start:end], want))
}

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d of the table:\n doc:  %q\n data: %q", i+1, gl, wl)
		}
	}
	return ""
}

// render writes the generated part of the package comment: a blank comment
// line, the table as a code block, then a section each for the calibration
// factors, the sources and the other spellings.
func render() string {
	var b strings.Builder
	line := func(s string) {
		if s == "" {
			b.WriteString("//\n")
			return
		}
		b.WriteString("// " + s + "\n")
	}
	code := func(s string) { b.WriteString("//\t" + s + "\n") }

	// Sources are numbered in order of first use; rows sharing a page
	// share its number.
	var sources []string
	number := map[string]int{}
	cite := func(src string) {
		if _, ok := number[src]; !ok && src != "" {
			sources = append(sources, src)
			number[src] = len(sources)
		}
	}
	for i := range table {
		cite(table[i].source)
	}
	for i := range table {
		p := table[i].model().Pricing
		cite(p.Source)
		cite(p.CacheSource)
	}

	header := []string{"Family", "Provider", "Window", "Max output", "Tokenizer", "Source"}
	rows := [][]string{header}
	for i := range table {
		r := &table[i]
		tok := r.tok.encoding()
		if tok == "" {
			tok = fmt.Sprintf("o200k_base × %.2f", r.tok.calibration())
		}
		rows = append(rows, []string{r.name, r.provider, thousands(r.window), thousands(r.maxOutput),
			tok, fmt.Sprintf("[%d]", number[r.source])})
	}
	width := make([]int, len(header))
	for _, cells := range rows {
		for c, cell := range cells {
			width[c] = max(width[c], len([]rune(cell)))
		}
	}
	numeric := func(c int) bool { return c == 2 || c == 3 }
	cellsLine := func(cells []string) string {
		var l strings.Builder
		l.WriteString("|")
		for c, cell := range cells {
			pad := strings.Repeat(" ", width[c]-len([]rune(cell)))
			if numeric(c) && cell != header[c] {
				l.WriteString(" " + pad + cell + " |")
			} else {
				l.WriteString(" " + cell + pad + " |")
			}
		}
		return l.String()
	}
	line("")
	code(cellsLine(header))
	rule := "|"
	for c := range header {
		rule += strings.Repeat("-", width[c]+2) + "|"
	}
	code(rule)
	for _, cells := range rows[1:] {
		code(cellsLine(cells))
	}

	line("")
	line("# Prices")
	line("")
	line("US dollars per million tokens; \"-\" where no price could be sourced.")
	line("Cache is the lifetime of a cached prefix (\"none\": no prompt cache,")
	line("every input token billed in full); 1h write is the price of a write kept")
	line("for an hour where the provider offers it; Min is the shortest prefix")
	line("cached, in tokens.")
	line("")
	writeGrid(code, renderPrices(number))

	line("")
	line("# Calibration factors")
	line("")
	seen := map[tokenizer]bool{}
	for i := range table {
		tok := table[i].tok
		if seen[tok] || tok.encoding() != "" {
			continue
		}
		seen[tok] = true
		for _, l := range wrap(fmt.Sprintf("%s, × %.2f. %s", tok.label(), tok.calibration(), tok.basis()), 74) {
			line(l)
		}
		line("")
	}

	line("# Sources")
	line("")
	for i, s := range sources {
		code(fmt.Sprintf("[%d] %s", i+1, s))
	}

	line("")
	line("# Other spellings")
	line("")
	line("Lookup also answers to these names, and to longer names that begin with")
	line("them as described above:")
	line("")
	nameWidth := 0
	for i := range table {
		if len(table[i].also) > 0 {
			nameWidth = max(nameWidth, len(table[i].name))
		}
	}
	for i := range table {
		r := &table[i]
		if len(r.also) > 0 {
			code(r.name + strings.Repeat(" ", nameWidth-len(r.name)) + "  " + strings.Join(r.also, ", "))
		}
	}
	return b.String()
}

// renderPrices returns the rows of the price table, header first, citing
// sources by their number.
func renderPrices(number map[string]int) [][]string {
	rows := [][]string{{"Family", "Input", "Cache read", "Cache write", "1h write", "Output", "Cache", "Min", "Source"}}
	for i := range table {
		p := table[i].model().Pricing
		if !p.Known() {
			rows = append(rows, []string{table[i].name, "-", "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		long, cache, minimum := "-", "none", "-"
		if p.LongCacheLifetime > 0 {
			long = dollars(p.CacheWriteLong)
		}
		if p.CacheLifetime > 0 {
			cache, minimum = shortDuration(p.CacheLifetime), thousands(p.MinCachePrefix)
		}
		rows = append(rows, []string{table[i].name, dollars(p.Input), dollars(p.CacheRead), dollars(p.CacheWrite),
			long, dollars(p.Output), cache, minimum, fmt.Sprintf("[%d], [%d]", number[p.Source], number[p.CacheSource])})
	}
	return rows
}

// writeGrid writes rows as a table of left-aligned cells with a rule
// under the header, each line through code.
func writeGrid(code func(string), rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, cells := range rows {
		for c, cell := range cells {
			width[c] = max(width[c], len([]rune(cell)))
		}
	}
	for r, cells := range rows {
		l := "|"
		for c, cell := range cells {
			l += " " + cell + strings.Repeat(" ", width[c]-len([]rune(cell))) + " |"
		}
		code(l)
		if r == 0 {
			rule := "|"
			for c := range cells {
				rule += strings.Repeat("-", width[c]+2) + "|"
			}
			code(rule)
		}
	}
}

// dollars writes a price with two decimals, or more when it needs them.
func dollars(v float64) string {
	if math.Abs(math.Round(v*100)-v*100) < 1e-9 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// shortDuration writes d as "5m" or "1h".
func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	s = strings.TrimSuffix(s, "0m")
	return s
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// wrap breaks text into lines of at most width runes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	var cur string
	for _, w := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
