package compacttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/contextkit/compact"
)

// summarizerCase is one rule of the compact.Summarizer contract.
type summarizerCase struct {
	name        string
	explanation string
	check       func(s compact.Summarizer) error
}

// turns are the messages summarizer cases fold.
func turns() []compact.Message {
	h := codingSession(6, true)
	return h[1:] // without the system prompt, as the Compressor sends them
}

var summarizerCases = []summarizerCase{
	{
		name:        "summarizes",
		explanation: "a summarizer must return a non-empty summary for non-empty turns",
		check: func(s compact.Summarizer) error {
			got, err := s.Summarize(context.Background(), compact.SummaryRequest{Turns: turns(), TargetTokens: 400})
			if err != nil {
				return fmt.Errorf("summarize: %w", err)
			}
			if strings.TrimSpace(got) == "" {
				return errors.New("empty summary")
			}
			return nil
		},
	},
	{
		name:        "body-only",
		explanation: "a summarizer returns the body only: the Compressor adds the summary prefix exactly once",
		check: func(s compact.Summarizer) error {
			got, err := s.Summarize(context.Background(), compact.SummaryRequest{Turns: turns(), TargetTokens: 400})
			if err != nil {
				return fmt.Errorf("summarize: %w", err)
			}
			if compact.IsSummary(compact.Message{Role: compact.RoleUser, Content: got}) {
				return errors.New("the summary starts with the summary prefix")
			}
			return nil
		},
	},
	{
		name:        "input-unchanged",
		explanation: "a summarizer must not modify the turns it is given",
		check: func(s compact.Summarizer) error {
			in := turns()
			before := compact.Clone(in)
			if _, err := s.Summarize(context.Background(), compact.SummaryRequest{Turns: in, TargetTokens: 400}); err != nil {
				return fmt.Errorf("summarize: %w", err)
			}
			if !reflect.DeepEqual(before, in) {
				return errors.New("summarize modified its turns")
			}
			return nil
		},
	},
	{
		name:        "previous-summary-carried",
		explanation: "a new summary replaces the previous one, so what the previous one held must carry forward",
		check: func(s compact.Summarizer) error {
			const fact = "internal/legacy/ledger_v1.go"
			prev := "Earlier work: the user asked to keep " + fact + " unchanged; it is still read by the nightly export."
			got, err := s.Summarize(context.Background(), compact.SummaryRequest{Turns: turns(), PreviousSummary: prev, TargetTokens: 600})
			if err != nil {
				return fmt.Errorf("summarize: %w", err)
			}
			if !strings.Contains(got, fact) {
				return fmt.Errorf("the new summary lost %q from the previous summary:\n%s", fact, got)
			}
			return nil
		},
	},
	{
		name:        "honours-cancellation",
		explanation: "a summarizer must stop when its context is done and return an error wrapping ctx.Err()",
		check: func(s compact.Summarizer) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := s.Summarize(ctx, compact.SummaryRequest{Turns: turns(), TargetTokens: 400})
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("summarize with a cancelled context: got %v, want an error wrapping context.Canceled", err)
			}
			return nil
		},
	},
	{
		name:        "concurrent-use",
		explanation: "one summarizer may serve many sessions at once",
		check: func(s compact.Summarizer) error {
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for i := 0; i < 4; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := s.Summarize(context.Background(), compact.SummaryRequest{Turns: turns(), TargetTokens: 400}); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				return fmt.Errorf("concurrent Summarize: %w", err)
			}
			return nil
		},
	},
}

// RunSummarizer checks s against every rule of the compact.Summarizer
// contract, as subtests named after the rules.
func RunSummarizer(t *testing.T, s compact.Summarizer) {
	t.Helper()
	for _, c := range summarizerCases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(s); err != nil {
				t.Errorf("%v\nrule: %s", err, c.explanation)
			}
		})
	}
}

// CheckSummarizer runs every rule outside a test and returns the broken
// ones joined, or nil.
func CheckSummarizer(s compact.Summarizer) error {
	var errs []error
	for _, c := range summarizerCases {
		if err := c.check(s); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}
