package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/contextkit/compact"
)

// Defaults of the command's own flags. The compaction defaults are the
// library's, so the command compacts as an agent built on it does.
const (
	// defaultSummaryModel is the model -summarizer openai asks when
	// -summary-model is not given: a small, cheap chat model.
	defaultSummaryModel = "gpt-4o-mini"

	// defaultSummaryTimeout bounds one summarizer call, so a hung endpoint
	// cannot hang the command.
	defaultSummaryTimeout = 2 * time.Minute
)

// The windows -probe compacts at when -window is not given: small enough
// that every shared transcript is compacted, the smaller one tight enough
// that the summary's budget bites.
const (
	probeWindowSmall = 8000
	probeWindowLarge = 16000
)

// options are the parsed command line.
type options struct {
	out          string
	model        string
	window       int
	threshold    float64
	reserve      int // used only when given (set["reserve"])
	force        bool
	summarizer   string
	summaryModel string
	focus        string
	keep         int
	pruneOnly    bool
	timeout      time.Duration
	repair       bool
	report       bool
	explain      bool
	mustFit      bool
	jsonReport   string
	html         string
	probe        bool
	verbose      bool

	set   map[string]bool // flags given on the command line
	paths []string        // files, directories, or "-" for standard input
}

const usageText = `usage: compact [flags] FILE|DIR|- ...
       compact replay [flags] FILE|DIR ...   (what a session costs; compact replay -h)
       compact store expire|delete|redact [flags] STORE ...   (a session store's lifecycle; compact store -h)

Compacts an agent transcript the way the compact library does before a
model request, and writes the compacted history as a JSON array.

Input: a JSON array of OpenAI chat messages, JSONL (one message a line), or
an object with a "messages" array (a logged request). "-" reads standard
input. A directory, or several files, are compacted file by file into the
directory -o names.

Flags may come before or after the files; "--" ends them.

Exit status: 0 when every history was written (one still over the usable
window is written too, with a warning, and the report says by how much;
-must-fit makes that 3), 1 on bad input or a failed compaction (in a batch,
the other files are still written), 2 on a command line that cannot run.
`

// usageExamples end -h: the four things a newcomer does first.
const usageExamples = `
examples:
  # compact one file at a 16,000-token window and read what became of each message
  compact -window 16000 -o out.json -report -explain transcript.json

  # compact a directory into another, with a JSON report of every file
  compact -model gpt-4o -o compacted/ -json-report report.json transcripts/

  # look at a compaction: the history before and after, side by side, in a browser
  compact -force -window 8000 -o out.json -html view.html transcript.json

  # replay conversations under two settings and compare what each costs
  compact replay -compare "default;-threshold 0.5" transcripts/
`

// newFlagSet declares the flags on o.
func newFlagSet(o *options, stderr io.Writer) *flag.FlagSet {
	fs := commandFlagSet("compact", usageText, stderr)
	flagsUsage := fs.Usage
	fs.Usage = func() {
		flagsUsage()
		say(stderr, "%s", usageExamples)
	}
	fs.StringVar(&o.out, "o", "", "write the result to `FILE` (a directory for several inputs); default standard output")
	fs.StringVar(&o.model, "model", "", "model `NAME` whose token encoding counts tokens (default: the request's model, else o200k_base)")
	fs.IntVar(&o.window, "window", 0, "context window in `tokens` (default: the model's, from the model table, else 128000)")
	fs.Float64Var(&o.threshold, "threshold", compact.DefaultThreshold, "compact at this `fraction` of the usable window, in (0, 1]")
	fs.IntVar(&o.reserve, "reserve", 0, "output `tokens` reserved out of the window (default: the library's, 8192 capped at a quarter of the window)")
	fs.BoolVar(&o.force, "force", false, "compact even under the threshold")
	fs.StringVar(&o.summarizer, "summarizer", "extractive", "summarizer `name`: extractive (offline) or openai (OPENAI_API_KEY, OPENAI_BASE_URL); -probe takes a comma-separated list, and drop, a baseline that keeps no facts")
	fs.StringVar(&o.summaryModel, "summary-model", defaultSummaryModel, "`model` -summarizer openai asks")
	fs.StringVar(&o.focus, "focus", "", "a `topic` the summary should weight")
	fs.IntVar(&o.keep, "keep", 0, "partial compaction, as \"/compress here N\": keep the last `N` exchanges verbatim and summarise the rest (forced)")
	fs.BoolVar(&o.pruneOnly, "prune-only", false, "run the cheap tier alone (dedupe, mask and shorten old tool output), no summarizer")
	fs.DurationVar(&o.timeout, "timeout", defaultSummaryTimeout, "bound on one summarizer call")
	fs.BoolVar(&o.repair, "repair", false, "repair broken tool-call pairing instead of rejecting the input")
	fs.BoolVar(&o.report, "report", false, "write a report of what the compaction did to standard error")
	fs.BoolVar(&o.explain, "explain", false, fmt.Sprintf("with -report, list what became of each input message (the default when a compaction changed an input of at most %d messages)", explainBelow))
	fs.BoolVar(&o.mustFit, "must-fit", false, "exit 3 when a compacted history is still over the usable window (it is written either way, and the command says so)")
	fs.StringVar(&o.jsonReport, "json-report", "", "write the report as JSON to `FILE`, with what became of each input message")
	fs.StringVar(&o.html, "html", "", "write a self-contained HTML view of the compaction to `FILE` (a directory for several inputs: a page per file and index.html)")
	fs.BoolVar(&o.probe, "probe", false, "measure what survives compaction (latest ask, paths, modified files, identifiers, errors, last command) over the transcripts given, at 8,000 and 16,000 tokens unless -window is given")
	fs.BoolVar(&o.verbose, "v", false, "log the library's compaction lines to standard error")
	return fs
}

// commandFlagSet returns an empty flag set named name whose -h writes
// usage, then the flags, to stderr.
func commandFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		say(stderr, "%s", usage+"\nflags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// errUsage marks a command line that cannot run; the command exits 2.
var errUsage = errors.New("usage")

// parseArgs parses args, whose flags may come before, between or after the
// file names (the flag package alone stops at the first file name).
func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := newFlagSet(o, stderr)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	o.paths = paths
	if err := o.check(); err != nil {
		say(stderr, "compact: %s\n", errText(err))
		return nil, errUsage
	}
	return o, nil
}

// parseFlags parses the flags among args on fs and returns the file names
// in order. The error is flag.ErrHelp for -h, and errUsage when the flag
// package has said what is wrong.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	flags, paths := splitArgs(fs, args)
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	return paths, nil
}

// splitArgs separates flags (with their values) from file names, keeping
// each group's order. "--" ends the flags; a lone "-" is a file name
// (standard input). A flag it does not know is passed on for the flag
// package to report.
func splitArgs(fs *flag.FlagSet, args []string) (flags, paths []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(paths, args[i+1:]...)
		}
		if len(a) < 2 || a[0] != '-' {
			paths = append(paths, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return flags, paths
}

// check rejects values the command cannot run with.
func (o *options) check() error {
	if len(o.paths) == 0 {
		return errors.New("no input: give a FILE, a DIR or - for standard input (-h for help)")
	}
	window := o.window
	if !o.set["window"] {
		// The model's window, known once the model is: the library
		// reports a reserve it cannot take (Status().Adjusted).
		window = math.MaxInt
	}
	if err := checkWindow(window, o.threshold, o.set["reserve"], o.reserve); err != nil {
		return err
	}
	switch {
	case o.timeout <= 0:
		return fmt.Errorf("-timeout %v: want a positive duration", o.timeout)
	case o.set["keep"] && (o.keep < 1 || o.keep > maxKeep()):
		return fmt.Errorf("-keep %d: want a number of exchanges in [1, %d]", o.keep, maxKeep())
	case o.set["keep"] && o.pruneOnly:
		return errors.New("-keep and -prune-only are two different compactions: give one")
	case o.probe && (o.set["keep"] || o.pruneOnly):
		return errors.New("-probe measures full compactions; it takes no -keep or -prune-only")
	}
	names := o.summarizers()
	for _, n := range names {
		switch n {
		case "extractive", "openai":
		case "drop":
			if !o.probe {
				return errors.New("-summarizer drop is a baseline for -probe only")
			}
		default:
			return fmt.Errorf("-summarizer %q: want extractive or openai", n)
		}
	}
	if len(names) != 1 && !o.probe {
		return fmt.Errorf("-summarizer %q: name one summarizer (lists are for -probe)", o.summarizer)
	}
	for _, p := range o.paths {
		if p == "-" && len(o.paths) > 1 {
			return errors.New("- (standard input) cannot be combined with other inputs")
		}
	}
	if o.probe && (o.out != "" || o.jsonReport != "" || o.html != "") {
		return errors.New("-probe writes a table to standard output; it takes no -o, -json-report or -html")
	}
	return nil
}

// checkWindow rejects a window, threshold and reserve (when given) the
// library would not take.
func checkWindow(window int, threshold float64, reserveSet bool, reserve int) error {
	switch {
	case window <= 0:
		return fmt.Errorf("-window %d: want a positive number of tokens", window)
	case !(threshold > 0 && threshold <= 1):
		return fmt.Errorf("-threshold %v: want a fraction in (0, 1]", threshold)
	case reserveSet && (reserve < 0 || reserve >= window):
		return fmt.Errorf("-reserve %d: want 0 <= reserve < window (%d)", reserve, window)
	}
	return nil
}

// summarizers returns the summarizer names -summarizer lists.
func (o *options) summarizers() []string {
	var out []string
	for _, n := range strings.Split(o.summarizer, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// maxKeep is the most exchanges "/compress here N" keeps: the bound
// compact.ParseCompressArgs clamps N to.
func maxKeep() int {
	return compact.ParseCompressArgs("here " + strconv.Itoa(math.MaxInt32)).Keep
}
