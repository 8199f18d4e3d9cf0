package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// batchItem is one file of a batch and where its result goes.
type batchItem struct {
	in, out string
	html    string // its page under -html DIR; "" without -html
}

// batch compacts every input file into the -o directory, each written
// atomically; a file that fails writes nothing and the others go on. The
// exit code is 1 when any file failed.
func (c *cli) batch(ctx context.Context, e *engine) int {
	items, err := c.batchItems()
	if err != nil {
		say(c.stderr, "compact: %s\n", errText(err))
		return exitUsage
	}
	for _, dir := range []string{c.o.out, c.o.html} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			say(c.stderr, "compact: %s\n", errText(err))
			return exitError
		}
	}
	p := startProgress(c.stderr, c.progress, len(items), "")
	var reports []report
	var compacted, unchanged, failed, over int
	for i, it := range items {
		if ctx.Err() != nil {
			break
		}
		p.set(i, filepath.Base(it.in))
		r, err := c.batchOne(ctx, e, it)
		if err != nil {
			failed++
			p.println("compact: %s: %s", it.in, errText(err))
			reports = append(reports, report{File: it.in, Error: errText(err),
				SummarizedFrom: -1, SummarizedTo: -1, SummaryIndex: -1, Lifted: -1})
			continue
		}
		if r.Compacted {
			compacted++
		} else {
			unchanged++
		}
		if c.o.report {
			p.println("%s", r.line())
		}
		if !r.Fits {
			over++
			p.println("compact: %s: does not fit: %s", it.in, r.fit.text())
		}
		reports = append(reports, r)
	}
	p.finish()
	code := exitOK
	if err := ctx.Err(); err != nil {
		say(c.stderr, "compact: stopped after %d of %s: %v\n", len(reports), plural(len(items), "file"), err)
		code = exitError
	}
	if c.o.html != "" {
		if err := writeIndex(c.o.html, items, reports); err != nil {
			say(c.stderr, "compact: %s\n", errText(err))
			code = exitError
		}
	}
	if c.o.jsonReport != "" {
		data, err := encodeJSON(reports)
		if err == nil {
			err = writeFiles(map[string][]byte{c.o.jsonReport: data})
		}
		if err != nil {
			say(c.stderr, "compact: %s\n", errText(err))
			code = exitError
		}
	}
	say(c.stderr, "compact: %s into %s: %d compacted, %d unchanged, %d failed, %d over the window\n",
		plural(len(items), "file"), c.o.out, compacted, unchanged, failed, over)
	if over > 0 && c.o.mustFit && code == exitOK {
		code = exitOverflow
	}
	if failed > 0 {
		code = exitError
	}
	return code
}

// batchOne compacts one file of a batch and writes its result.
func (c *cli) batchOne(ctx context.Context, e *engine, it batchItem) (report, error) {
	t, err := c.read(it.in)
	if err != nil {
		return report{}, err
	}
	oc, err := e.compactOne(ctx, t, c.o.window, c.o.force)
	if err != nil {
		return report{}, err
	}
	data, err := encodeMessages(oc.out)
	if err != nil {
		return report{}, err
	}
	r := newReport(oc)
	r.File, r.Output = it.in, it.out
	files := map[string][]byte{it.out: data}
	if it.html != "" {
		page, err := htmlPage(oc, r, filepath.Base(it.in))
		if err != nil {
			return report{}, err
		}
		files[it.html] = page
	}
	if err := writeFiles(files); err != nil {
		return report{}, err
	}
	return r, nil
}

// batchItems lists the files a batch compacts: the .json and .jsonl files
// of each directory given (not its subdirectories, not hidden files) and
// each file given, with their outputs in the -o directory under the same
// name (.jsonl becomes .json: the output is a JSON array).
func (c *cli) batchItems() ([]batchItem, error) {
	if fi, err := os.Stat(c.o.out); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("-o %s: not a directory, and there are several inputs", c.o.out)
	}
	if fi, err := os.Stat(c.o.html); c.o.html != "" && (err == nil && !fi.IsDir() || err != nil && strings.HasSuffix(c.o.html, ".html")) {
		return nil, fmt.Errorf("-html %s: a batch writes a page per file and an index: give a directory", c.o.html)
	}
	var items []batchItem
	seen := map[string]string{}
	add := func(in string) error {
		base := filepath.Base(in)
		if strings.HasSuffix(base, ".jsonl") {
			base = strings.TrimSuffix(base, "l")
		}
		out := filepath.Join(c.o.out, base)
		if prev, ok := seen[out]; ok {
			return fmt.Errorf("%s and %s would both be written to %s", prev, in, out)
		}
		if sameFile(in, out) {
			return fmt.Errorf("%s would be overwritten by its own result: choose another -o directory", in)
		}
		seen[out] = in
		it := batchItem{in: in, out: out}
		if c.o.html != "" {
			it.html = filepath.Join(c.o.html, strings.TrimSuffix(base, ".json")+".html")
		}
		items = append(items, it)
		return nil
	}
	for _, p := range c.o.paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			if err := add(p); err != nil {
				return nil, err
			}
			continue
		}
		files, err := transcriptFiles(p)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s holds no .json or .jsonl files", p)
		}
		for _, f := range files {
			if err := add(f); err != nil {
				return nil, err
			}
		}
	}
	return items, nil
}

// transcriptFiles returns the .json and .jsonl files directly in dir,
// sorted, leaving out hidden ones.
func transcriptFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, en := range entries {
		name := en.Name()
		if strings.HasPrefix(name, ".") || !(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")) {
			continue
		}
		if !en.Type().IsRegular() {
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() {
				continue // a directory or a broken link named *.json
			}
		}
		out = append(out, filepath.Join(dir, name))
	}
	sort.Strings(out)
	return out, nil
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}
