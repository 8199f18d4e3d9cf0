package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // bad input, a failed compaction, a write that failed
	exitUsage = 2 // a command line that cannot run
	// exitOverflow: under -must-fit, a history was written that is still
	// over the usable window (the report says by how much and names the
	// largest message kept verbatim): a request with it would be refused.
	// Without -must-fit that is a warning and the exit code is 0, since the
	// history written is the smallest the settings allow.
	exitOverflow = 3
)

// cli is one run of the command with its streams.
type cli struct {
	o        *options
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	progress progressConfig
}

// run runs the command with args (without the program name) and returns
// its exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signalContext()
	defer stop()
	return runContext(ctx, args, stdin, stdout, stderr, defaultProgress(stderr))
}

func runContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, pc progressConfig) int {
	if len(args) > 0 && args[0] == "store" {
		c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, progress: pc}
		return c.storeCommand(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "replay" {
		c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, progress: pc}
		return c.replay(ctx, args[1:])
	}
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	c := &cli{o: o, stdin: stdin, stdout: stdout, stderr: stderr, progress: pc}
	if o.probe {
		return c.probe(ctx)
	}
	batch, err := c.isBatch()
	if err != nil {
		say(stderr, "compact: %s\n", errText(err))
		return exitUsage
	}
	e, err := newEngine(o, o.summarizers()[0], c.logger())
	if err != nil {
		say(stderr, "compact: %s\n", errText(err))
		return exitUsage
	}
	if batch {
		return c.batch(ctx, e)
	}
	return c.single(ctx, e, o.paths[0])
}

// logger sends the library's log lines to standard error under -v.
func (c *cli) logger() *slog.Logger { return loggerFor(c.stderr, c.o.verbose) }

// loggerFor returns a logger that writes to w when verbose, and discards
// everything otherwise.
func loggerFor(w io.Writer, verbose bool) *slog.Logger {
	if !verbose {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// isBatch reports whether the inputs are compacted file by file into a
// directory: several inputs, or a directory.
func (c *cli) isBatch() (bool, error) {
	batch := len(c.o.paths) > 1
	for _, p := range c.o.paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			batch = true
		}
	}
	if !batch {
		if fi, err := os.Stat(c.o.out); err == nil && fi.IsDir() && c.o.paths[0] != "-" {
			return true, nil // one file into a directory
		}
		return false, nil
	}
	if c.o.out == "" {
		return false, errors.New("compacting a directory or several files needs -o DIR")
	}
	return true, nil
}

// single compacts one file (or standard input) and writes the result.
func (c *cli) single(ctx context.Context, e *engine, path string) int {
	name := path
	if path == "-" {
		name = "standard input"
	}
	fail := func(err error) int {
		say(c.stderr, "compact: %s: %s\n", name, errText(err))
		return exitError
	}
	t, err := c.read(path)
	if err != nil {
		return fail(err)
	}
	p := startProgress(c.stderr, c.progress, 0, fmt.Sprintf("compacting %s (%s)", filepath.Base(name), plural(len(t.msgs), "message")))
	oc, err := e.compactOne(ctx, t, c.o.window, c.o.force)
	p.finish()
	if err != nil {
		return fail(err)
	}
	data, err := encodeMessages(oc.out)
	if err != nil {
		return fail(err)
	}
	r := newReport(oc)
	r.File, r.Output = path, c.o.out
	files := map[string][]byte{}
	if c.o.out != "" {
		files[c.o.out] = data
	}
	if c.o.jsonReport != "" {
		rep, err := encodeJSON(r)
		if err != nil {
			return fail(err)
		}
		files[c.o.jsonReport] = rep
	}
	if c.o.html != "" {
		page, err := htmlPage(oc, r, filepath.Base(name))
		if err != nil {
			return fail(err)
		}
		files[c.o.html] = page
	}
	if err := writeFiles(files); err != nil {
		return fail(err)
	}
	if c.o.out == "" {
		if _, err := c.stdout.Write(data); err != nil {
			return fail(err)
		}
	}
	if c.o.report {
		r.writeHuman(c.stderr, name, c.o.explain || r.Compacted && len(oc.hist) <= explainBelow)
	} else {
		c.notes(name, r)
	}
	if !r.Fits {
		if !c.o.report {
			say(c.stderr, "compact: %s: does not fit: %s\n", name, r.fit.text())
		}
		if c.o.mustFit {
			return exitOverflow
		}
	}
	return exitOK
}

// notes writes, without -report, what a user must not miss: that nothing
// was compacted, that the input was repaired, that fields were dropped.
func (c *cli) notes(name string, r report) {
	if r.Note != "" {
		say(c.stderr, "compact: %s: %s\n", name, r.Note)
	}
	if n := len(r.Repairs); n > 0 {
		say(c.stderr, "compact: %s: repaired %s; -report lists them\n", name, plural(n, "tool-pairing problem"))
	}
	if len(r.DroppedFields) > 0 {
		say(c.stderr, "compact: %s: fields not carried into the output: %v\n", name, r.DroppedFields)
	}
	if r.Fallback {
		say(c.stderr, "compact: %s: the summarizer failed, the extractive fallback was used: %s\n", name, r.FallbackReason)
	}
}

// read decodes the transcript at path ("-": standard input).
func (c *cli) read(path string) (*transcript, error) {
	if path == "-" {
		return readTranscript(c.stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	t, err := readTranscript(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return t, err
}
