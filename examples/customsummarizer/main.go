// Command customsummarizer plugs a summarizer of its own into the
// Compressor and proves it keeps the Summarizer contract with compacttest:
//
//	go run ./examples/customsummarizer
//
// The summarizer here is deliberately simple: it lists what the user asked
// and which tools ran. A real one might call an internal model service or
// keep domain facts (ticket ids, customer names) a generic summary drops.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/compacttest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// ledger is a Summarizer that keeps the user's requests and a count of the
// tool calls made, by tool.
type ledger struct{}

// Name is how results and reports name the summarizer: ledger is a
// compact.Namer.
func (ledger) Name() string { return "ledger" }

// Summarize keeps the rules every Summarizer keeps: it honours ctx, never
// modifies req.Turns, returns the body without the summary prefix, carries
// the previous summary forward, and returns an error rather than nothing.
func (ledger) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var asks []string
	tools := map[string]int{}
	for _, m := range req.Turns {
		switch {
		case compact.IsRealUser(m):
			if t := strings.TrimSpace(compact.Text(m)); t != "" {
				asks = append(asks, "- "+oneLine(t, 200))
			}
		case m.Role == compact.RoleAssistant:
			for _, c := range m.ToolCalls {
				tools[c.Function.Name]++
			}
		}
	}
	var b strings.Builder
	if req.PreviousSummary != "" {
		b.WriteString("Earlier:\n" + req.PreviousSummary + "\n\n")
	}
	if len(asks) > 0 {
		b.WriteString("The user asked:\n" + strings.Join(asks, "\n") + "\n")
	}
	if len(tools) > 0 {
		names := make([]string, 0, len(tools))
		for n := range tools {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString("Tools run:")
		for _, n := range names {
			fmt.Fprintf(&b, " %s ×%d", n, tools[n])
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		if len(req.Turns) == 0 {
			return "", errors.New("ledger: nothing to summarise")
		}
		fmt.Fprintf(&b, "%d turns without requests or tool calls.", len(req.Turns))
	}
	return strings.TrimSpace(b.String()), nil
}

func oneLine(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return string(r)
}

func run(ctx context.Context, w io.Writer) error {
	// compacttest holds the summarizer to its contract before it is used.
	if err := compacttest.CheckSummarizer(ledger{}); err != nil {
		return fmt.Errorf("ledger breaks the Summarizer contract: %w", err)
	}
	_, _ = fmt.Fprintln(w, "ledger keeps the Summarizer contract")

	c := compact.New(compact.WithContextWindow(4000), compact.WithSummarizer(ledger{}))
	history := compacttest.Histories()[0].Messages
	res, err := c.Compress(ctx, history, compact.Force())
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(w, "%d messages (%d tokens) -> %d (%d tokens), summary by %s:\n%s\n",
		res.MessagesBefore, res.TokensBefore, res.MessagesAfter, res.TokensAfter, res.Summarizer, res.Summary)
	return nil
}
