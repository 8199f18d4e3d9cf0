// Package compacttest checks that a compact.ContextEngine or a
// compact.Summarizer keeps the contracts of package compact.
//
// A third-party engine proves itself with one call in its tests:
//
//	func TestMyEngine(t *testing.T) {
//		compacttest.Run(t, func() compact.ContextEngine {
//			return myengine.New(myengine.WithWindow(4000))
//		})
//	}
//
// Each contract is a subtest named after it, run on every built-in history
// (see Histories); a failure says which rule was broken and why it matters.
// Engines are compacted with compact.Force, so newEngine should return an
// engine with a small window (about 4,000 tokens) and a deterministic
// summarizer. CheckEngine runs the same checks outside a test.
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
	"github.com/contextkit/compact/internal/msg"
)

// errSkip marks a case that does not apply to a history.
var errSkip = errors.New("does not apply")

// engineCase is one contract, checked on every history.
type engineCase struct {
	name        string
	explanation string
	check       func(newEngine func() compact.ContextEngine, h History) error
}

var engineCases = []engineCase{
	{
		name:        "output-validates",
		explanation: "the compacted history must be a valid request: every tool result answers a call, every call is answered except a pending group at the end, no empty assistant turn, no user-user or assistant-assistant pair that compaction created",
		check: func(ne func() compact.ContextEngine, h History) error {
			res, err := compress(ne(), h.Messages)
			if err != nil {
				return err
			}
			if err := compact.Validate(res.Messages); err != nil {
				return fmt.Errorf("compacted history is invalid: %w", err)
			}
			if n := createdSeams(h.Messages, res.Messages); n > 0 {
				return fmt.Errorf("compaction created %d user-user or assistant-assistant pairs", n)
			}
			return nil
		},
	},
	{
		name:        "system-prompt-kept",
		explanation: "the system prompt must come back byte-identical, plus at most one compaction note added once",
		check: func(ne func() compact.ContextEngine, h History) error {
			if len(h.Messages) == 0 || h.Messages[0].Role != compact.RoleSystem {
				return errSkip
			}
			e := ne()
			res, err := compress(e, h.Messages)
			if err != nil {
				return err
			}
			in, out := compact.Text(h.Messages[0]), compact.Text(res.Messages[0])
			if res.Messages[0].Role != compact.RoleSystem || !strings.HasPrefix(out, in) {
				return fmt.Errorf("system prompt changed:\n in: %.80q\nout: %.80q", in, out)
			}
			again, err := e.Compress(context.Background(), res.Messages, compact.Force())
			if err == nil && compact.Text(again.Messages[0]) != out {
				return errors.New("a second compaction changed the system prompt again")
			}
			return nil
		},
	},
	{
		name:        "tail-verbatim",
		explanation: "the last message and the latest real user message must come back verbatim, so the model still sees what it was asked and where it stopped",
		check: func(ne func() compact.ContextEngine, h History) error {
			res, err := compress(ne(), h.Messages)
			if err != nil {
				return err
			}
			last := h.Messages[len(h.Messages)-1]
			if got := res.Messages[len(res.Messages)-1]; !reflect.DeepEqual(got, last) && !shares(got, last) {
				return fmt.Errorf("last message changed:\n in: %+v\nout: %+v", last, got)
			}
			if u := latestRealUser(h.Messages); u >= 0 && !containsMessage(res.Messages, h.Messages[u]) {
				return fmt.Errorf("latest user message (input %d) is not in the output verbatim", u)
			}
			return nil
		},
	},
	{
		name:        "user-first",
		explanation: "a history that opens on a user turn (after the system prompt) must still open on one once compacted, and again when compacted twice: Bedrock's Converse API and several open models' chat templates reject a conversation whose first turn is not the user's; a summary placed first is a user turn, or merged in front of the user turn after it",
		check: func(ne func() compact.ContextEngine, h History) error {
			if f := firstTurn(h.Messages); f >= len(h.Messages) || h.Messages[f].Role != compact.RoleUser {
				return errSkip
			}
			e := ne()
			res, err := compress(e, h.Messages)
			if err != nil {
				return err
			}
			if f := firstTurn(res.Messages); f < len(res.Messages) && res.Messages[f].Role != compact.RoleUser {
				return fmt.Errorf("the compacted history opens on a %s turn (message %d)", res.Messages[f].Role, f)
			}
			again, err := e.Compress(context.Background(), res.Messages, compact.Force())
			if err != nil {
				return nil // nothing more to fold: one-summary says whether that is right
			}
			if f := firstTurn(again.Messages); f < len(again.Messages) && again.Messages[f].Role != compact.RoleUser {
				return fmt.Errorf("compacted twice, the history opens on a %s turn (message %d)", again.Messages[f].Role, f)
			}
			return nil
		},
	},
	{
		name:        "nothing-disappears",
		explanation: "every input message must be in the output verbatim, inside the range the result reports as summarised, or reported as pruned",
		check: func(ne func() compact.ContextEngine, h History) error {
			res, err := compress(ne(), h.Messages)
			if err != nil {
				return err
			}
			if res.MessagesBefore != len(h.Messages) || res.MessagesAfter != len(res.Messages) {
				return fmt.Errorf("result counts %d→%d, want %d→%d", res.MessagesBefore, res.MessagesAfter, len(h.Messages), len(res.Messages))
			}
			pruned := make(map[int]bool, len(res.Pruned))
			for _, c := range res.Pruned {
				pruned[c.Index] = true
			}
			for i, m := range h.Messages {
				inRange := i >= res.SummarizedFrom && i <= res.SummarizedTo
				if inRange || pruned[i] || (i == 0 && m.Role == compact.RoleSystem) || containsMessage(res.Messages, m) {
					continue
				}
				return fmt.Errorf("message %d (%s) is neither in the output, nor in the reported range [%d, %d], nor reported pruned",
					i, m.Role, res.SummarizedFrom, res.SummarizedTo)
			}
			return nil
		},
	},
	{
		name:        "one-summary",
		explanation: "compacting an already compacted history must yield one summary, never a stack of them",
		check: func(ne func() compact.ContextEngine, h History) error {
			e := ne()
			first, err := compress(e, h.Messages)
			if err != nil {
				return err
			}
			second, err := e.Compress(context.Background(), first.Messages, compact.Force())
			switch {
			case errors.Is(err, compact.ErrNothingToCompress) || errors.Is(err, compact.ErrNoSavings):
				second = first
			case err != nil:
				return fmt.Errorf("second compaction: %w", err)
			}
			if n := summaries(second.Messages); n > 1 {
				return fmt.Errorf("%d summaries after compacting twice", n)
			}
			if err := compact.Validate(second.Messages); err != nil {
				return fmt.Errorf("second compaction is invalid: %w", err)
			}
			return nil
		},
	},
	{
		name:        "input-unchanged",
		explanation: "the caller's slice and messages must never be modified, nor shared with the result",
		check: func(ne func() compact.ContextEngine, h History) error {
			in := compact.Clone(h.Messages)
			res, err := compress(ne(), in)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(in, h.Messages) {
				return errors.New("compress modified its input")
			}
			for i := range res.Messages {
				res.Messages[i].Content += " (changed by the caller)"
				for k := range res.Messages[i].MultiContent {
					res.Messages[i].MultiContent[k].Text += "!"
				}
				for k := range res.Messages[i].ToolCalls {
					res.Messages[i].ToolCalls[k].Function.Arguments += "!"
				}
			}
			if !reflect.DeepEqual(in, h.Messages) {
				return errors.New("the result shares memory with the input")
			}
			return nil
		},
	},
	{
		name:        "deterministic",
		explanation: "with a deterministic summarizer the same input must give the same output",
		check: func(ne func() compact.ContextEngine, h History) error {
			a, err := compress(ne(), h.Messages)
			if err != nil {
				return err
			}
			b, err := compress(ne(), h.Messages)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(a.Messages, b.Messages) {
				return errors.New("two compactions of the same history differ")
			}
			return nil
		},
	},
	{
		name:        "concurrent-use",
		explanation: "an engine must be safe to call from several goroutines at once",
		check: func(ne func() compact.ContextEngine, h History) error {
			e := ne()
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for i := 0; i < 4; i++ {
				wg.Add(1)
				msgs := compact.Clone(h.Messages) // each caller owns its slice
				go func() {
					defer wg.Done()
					e.ShouldCompress(1 << 30)
					_ = e.Status()
					e.HasContentToCompress(msgs)
					if _, err := compress(e, msgs); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			return <-errs
		},
	},
}

// edgeCases are checked once, not per history.
var edgeCases = []struct {
	name        string
	explanation string
	check       func(e compact.ContextEngine) error
}{
	{
		name:        "nothing-to-compress",
		explanation: "a history whose every message is protected has nothing to compress, and the engine says so without calling a model",
		check: func(e compact.ContextEngine) error {
			tiny := []compact.Message{{Role: compact.RoleSystem, Content: "s"}, {Role: compact.RoleUser, Content: "hi"}}
			if e.HasContentToCompress(tiny) {
				return errors.New("engine.HasContentToCompress is true for a system prompt and one user message")
			}
			if _, err := e.Compress(context.Background(), tiny, compact.Force()); !errors.Is(err, compact.ErrNothingToCompress) {
				return fmt.Errorf("compress of a fully protected history: got %v, want an error wrapping ErrNothingToCompress", err)
			}
			return nil
		},
	},
	{
		name:        "invalid-input-rejected",
		explanation: "a broken history is reported (naming where it is broken), never silently compacted",
		check: func(e compact.ContextEngine) error {
			bad := []compact.Message{{Role: compact.RoleUser, Content: "u"}, {Role: compact.RoleTool, ToolCallID: "x", Content: "orphan"}}
			if _, err := e.Compress(context.Background(), bad, compact.Force()); !errors.Is(err, compact.ErrInvalidHistory) {
				return fmt.Errorf("compress of a history with an orphan tool result: got %v, want an error wrapping ErrInvalidHistory", err)
			}
			return nil
		},
	},
}

// Run checks the engines newEngine returns against every contract, as
// subtests named contract/history.
func Run(t *testing.T, newEngine func() compact.ContextEngine) {
	t.Helper()
	for _, c := range edgeCases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(newEngine()); err != nil {
				t.Errorf("%v\nrule: %s", err, c.explanation)
			}
		})
	}
	for _, c := range engineCases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			for _, h := range Histories() {
				h := h
				t.Run(h.Name, func(t *testing.T) {
					switch err := c.check(newEngine, h); {
					case errors.Is(err, errSkip):
						t.Skip(err)
					case err != nil:
						t.Errorf("%v\nrule: %s", err, c.explanation)
					}
				})
			}
		})
	}
}

// CheckEngine runs every contract outside a test and returns the broken
// ones joined, each prefixed with its contract and history, or nil.
func CheckEngine(newEngine func() compact.ContextEngine) error {
	var errs []error
	for _, c := range edgeCases {
		if err := c.check(newEngine()); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	for _, c := range engineCases {
		for _, h := range Histories() {
			if err := c.check(newEngine, h); err != nil && !errors.Is(err, errSkip) {
				errs = append(errs, fmt.Errorf("%s/%s: %w", c.name, h.Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// compress compacts msgs with Force.
func compress(e compact.ContextEngine, msgs []compact.Message) (*compact.Result, error) {
	res, err := e.Compress(context.Background(), msgs, compact.Force())
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	if res == nil || len(res.Messages) == 0 {
		return nil, errors.New("compress returned no messages")
	}
	return res, nil
}

func latestRealUser(msgs []compact.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if compact.IsRealUser(msgs[i]) {
			return i
		}
	}
	return -1
}

// containsMessage reports whether msgs hold m verbatim: as it is, or with
// the summary merged in front of its content (see compact.WithUserFirst).
func containsMessage(msgs []compact.Message, m compact.Message) bool {
	for _, o := range msgs {
		if reflect.DeepEqual(o, m) || shares(o, m) {
			return true
		}
	}
	return false
}

// shares reports whether o is m with a summary merged in front of its
// content, m's own content unchanged.
func shares(o, m compact.Message) bool {
	_, own, ok := msg.SplitMerged(o)
	return ok && reflect.DeepEqual(own, m)
}

// firstTurn is the index of the first message of msgs that is not a system
// message, len(msgs) when there is none.
func firstTurn(msgs []compact.Message) int {
	i := 0
	for i < len(msgs) && (msgs[i].Role == compact.RoleSystem || msgs[i].Role == "developer") {
		i++
	}
	return i
}

func summaries(msgs []compact.Message) int {
	n := 0
	for _, m := range msgs {
		if compact.IsSummary(m) {
			n++
		}
	}
	return n
}

// createdSeams counts user-user and assistant-assistant pairs in out that in
// did not already have.
func createdSeams(in, out []compact.Message) int {
	had := map[string]bool{}
	for _, k := range seamKeys(in) {
		had[k] = true
	}
	n := 0
	for _, k := range seamKeys(out) {
		if !had[k] {
			n++
		}
	}
	return n
}

func seamKeys(msgs []compact.Message) []string {
	var keys []string
	for i := 1; i < len(msgs); i++ {
		a, b := msgs[i-1], msgs[i]
		if a.Role == b.Role && (a.Role == compact.RoleUser || a.Role == compact.RoleAssistant) && len(a.ToolCalls) == 0 {
			keys = append(keys, a.Role+"\x00"+compact.Text(a)+"\x00"+compact.Text(b))
		}
	}
	return keys
}
