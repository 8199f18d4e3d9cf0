package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/session"
)

// score counts one kind of fact over one or more transcripts: how many
// there were and how many the output kept, overall and among those at
// risk (every mention of them lay in the summarised turns, so only the
// summary could keep them).
type score struct {
	n, kept        int
	risk, riskKept int
	missing        []string
}

func (s *score) add(fact string, kept, atRisk bool) {
	s.n++
	if kept {
		s.kept++
	} else {
		s.missing = append(s.missing, fact)
	}
	if atRisk {
		s.risk++
		if kept {
			s.riskKept++
		}
	}
}

func (s *score) merge(o score) {
	s.n += o.n
	s.kept += o.kept
	s.risk += o.risk
	s.riskKept += o.riskKept
}

// cell is the score as "kept/n [kept/at risk]", "-" when there was none.
func (s score) cell() string {
	if s.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d [%d/%d]", s.kept, s.n, s.riskKept, s.risk)
}

// probeRow is one transcript compacted with one summarizer.
type probeRow struct {
	file          string
	messages      int
	before, after int
	compacted     bool
	note          string
	fallback      bool
	kinds         [numKinds]score
	recall        recall // of the facts lost, those context_search finds
}

// The kinds of fact the probe scores, in the order its tables show them.
const (
	kindAsk = iota
	kindPaths
	kindModified
	kindIDs
	kindErrors
	kindCommand
	numKinds
)

// kindNames label the kinds in tables (column, total line, lost fact).
var kindNames = [numKinds]struct{ column, total, lost string }{
	{"ask", "latest ask", "ask"},
	{"paths", "paths", "path"},
	{"modified", "modified", "modified file"},
	{"ids", "identifiers", "identifier"},
	{"errors", "error lines", "error"},
	{"last command", "last command", "command"},
}

// probe compacts every transcript given with every summarizer -summarizer
// lists, at each window (-window, or 8,000 and 16,000), and prints what
// survived.
func (c *cli) probe(ctx context.Context) int {
	files, err := probeFiles(c.o.paths)
	if err != nil {
		say(c.stderr, "compact: %s\n", errText(err))
		return exitUsage
	}
	windows := []int{probeWindowSmall, probeWindowLarge}
	if c.o.set["window"] {
		windows = []int{c.o.window}
	}
	names := c.o.summarizers()
	engines := make([]*engine, len(names))
	for i, n := range names {
		if engines[i], err = newEngine(c.o, n, c.logger()); err != nil {
			say(c.stderr, "compact: %s\n", errText(err))
			return exitUsage
		}
	}
	p := startProgress(c.stderr, c.progress, len(files)*len(names)*len(windows), "")
	code := exitOK
	rows := make([][]probeRow, len(names)*len(windows))
	done := 0
	for _, f := range files {
		t, err := c.read(f)
		if err != nil {
			p.println("compact: %s: %v", f, err)
			code = exitError
			done += len(names) * len(windows)
			continue
		}
		for w, window := range windows {
			for i, e := range engines {
				p.set(done, names[i]+" "+filepath.Base(f))
				done++
				row, err := probeOne(ctx, e, t, window)
				if err != nil {
					p.println("compact: %s (%s, %d tokens): %v", f, names[i], window, err)
					code = exitError
					continue
				}
				row.file = filepath.Base(f)
				rows[w*len(names)+i] = append(rows[w*len(names)+i], row)
			}
		}
	}
	p.finish()
	for w, window := range windows {
		for i, n := range names {
			if err := writeProbeTable(c.stdout, n, window, rows[w*len(names)+i], c.o.verbose); err != nil {
				say(c.stderr, "compact: %s\n", errText(err))
				return exitError
			}
		}
	}
	return code
}

// probeFiles expands directories into their transcripts.
func probeFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "-" {
			return nil, fmt.Errorf("-probe reads files, not standard input")
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := transcriptFiles(p)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no transcripts in %s", strings.Join(paths, ", "))
	}
	return out, nil
}

// probeOne compacts t (forced, at window) and scores what survived.
func probeOne(ctx context.Context, e *engine, t *transcript, window int) (probeRow, error) {
	oc, err := e.compactOne(ctx, t, window, true)
	if err != nil {
		return probeRow{}, err
	}
	row := probeRow{messages: len(t.msgs), before: oc.tokensBefore, after: oc.after,
		compacted: oc.res != nil, note: oc.note}
	hist := oc.hist
	f := factsOf(hist)
	var outText, keptText strings.Builder
	for _, m := range oc.out {
		outText.WriteString(normSpace(compact.Text(m) + " " + msg.ToolCallText(m)))
		outText.WriteByte('\n')
	}
	for i, text := range f.mentions {
		if oc.res == nil || i < oc.res.SummarizedFrom || i > oc.res.SummarizedTo {
			keptText.WriteString(normSpace(text))
			keptText.WriteByte('\n')
		}
	}
	if oc.res != nil {
		row.fallback = oc.res.Fallback
	}
	out, kept := outText.String(), keptText.String()
	for k, list := range f.lists() {
		for _, fact := range list {
			row.kinds[k].add(fact, survives(fact, out), !survives(fact, kept))
		}
	}
	r, err := newRecaller(ctx, hist)
	if err != nil {
		return probeRow{}, err
	}
	scores := make([]*score, len(row.kinds))
	for k := range row.kinds {
		scores[k] = &row.kinds[k]
	}
	if row.recall, err = probeRecall(ctx, r, scores...); err != nil {
		return probeRow{}, fmt.Errorf("recall: %w", err)
	}
	return row, nil
}

// lists returns the facts by kind.
func (f facts) lists() [numKinds][]string {
	var l [numKinds][]string
	if f.ask != "" {
		l[kindAsk] = []string{f.ask}
	}
	l[kindPaths], l[kindModified], l[kindIDs], l[kindErrors] = f.paths, f.modified, f.ids, f.errors
	if f.command != "" {
		l[kindCommand] = []string{f.command}
	}
	return l
}

// writeProbeTable writes one summarizer's rows and totals to out. Totals count
// compacted transcripts only: an unchanged one keeps everything trivially.
func writeProbeTable(out io.Writer, name string, window int, rows []probeRow, verbose bool) error {
	var b bytes.Buffer
	w := &b
	fmt.Fprintf(w, "summarizer %s, window %s, forced\n", name, thousands(window))
	var cells strings.Builder // the table, cells separated by tabs
	fmt.Fprint(&cells, "transcript\tmsgs\ttokens\tafter\t")
	for _, k := range kindNames {
		fmt.Fprint(&cells, k.column+"\t")
	}
	fmt.Fprintln(&cells, "recoverable\t")
	var total probeRow
	compacted, fallbacks := 0, 0
	for _, r := range rows {
		after := thousands(r.after)
		if !r.compacted {
			after = "unchanged"
		} else if r.fallback {
			after += "*"
		}
		fmt.Fprintf(&cells, "%s\t%d\t%s\t%s\t", shortName(r.file), r.messages, thousands(r.before), after)
		for _, sc := range r.kinds {
			fmt.Fprint(&cells, sc.cell()+"\t")
		}
		fmt.Fprintln(&cells, r.recall.cell()+"\t")
		if !r.compacted {
			continue
		}
		compacted++
		if r.fallback {
			fallbacks++
		}
		for k := range total.kinds {
			total.kinds[k].merge(r.kinds[k])
		}
		total.recall.lost += r.recall.lost
		total.recall.found += r.recall.found
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if _, err := tw.Write([]byte(cells.String())); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d of %s compacted", name, compacted, plural(len(rows), "transcript"))
	if fallbacks > 0 {
		fmt.Fprintf(w, " (* %d fell back to the extractive summary)", fallbacks)
	}
	fmt.Fprintln(w)
	for k, sc := range total.kinds {
		fmt.Fprintf(w, "  %-13s kept %s, at risk kept %s\n", kindNames[k].total, rate(sc.kept, sc.n), rate(sc.riskKept, sc.risk))
	}
	fmt.Fprintf(w, "  %-13s %s found verbatim by %s\n", "facts lost", rate(total.recall.found, total.recall.lost), session.ToolSearch)
	if verbose {
		for _, r := range rows {
			for k, sc := range r.kinds {
				for _, m := range sc.missing {
					fmt.Fprintf(w, "  lost %s in %s: %.100q\n", kindNames[k].lost, r.file, m)
				}
			}
			for _, m := range r.recall.missing {
				fmt.Fprintf(w, "  not recoverable in %s: %.100q\n", r.file, m)
			}
		}
	}
	fmt.Fprintln(w)
	_, err := out.Write(b.Bytes())
	return err
}

// rate is "k/n (p%)".
func rate(k, n int) string {
	if n == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", k, n, 100*float64(k)/float64(n))
}

// shortName keeps a table readable: names past 44 bytes keep their head
// and tail.
func shortName(s string) string {
	s = strings.TrimSuffix(s, ".json")
	if len(s) <= 44 {
		return s
	}
	return s[:20] + "…" + s[len(s)-20:]
}
