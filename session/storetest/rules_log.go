package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	openai "github.com/sashabaranov/go-openai"
)

var logRules = []rule{
	{
		name:        "append-numbers-densely",
		explanation: "Append numbers messages 1, 2, 3... per session, with no gap, and returns the last number; Read gives them back oldest first, so a session's order is the log's",
		check: func(ctx context.Context, st store.Store, id string) error {
			first, second := text("first", 3), text("second", 2)
			if last, err := appendAll(ctx, st, id, first...); err != nil || last != 3 {
				return fmt.Errorf("first Append: last %d, %v; want 3", last, err)
			}
			if last, err := appendAll(ctx, st, id, second...); err != nil || last != 5 {
				return fmt.Errorf("second Append: last %d, %v; want 5", last, err)
			}
			if last, _, err := st.Append(ctx, id); err != nil || last != 5 {
				return fmt.Errorf("an empty Append: last %d, %v; want 5 and nothing appended", last, err)
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			for i, r := range recs {
				if r.Seq != int64(i+1) {
					return fmt.Errorf("record %d has Seq %d", i+1, r.Seq)
				}
				if r.At.IsZero() {
					return fmt.Errorf("record %d has no time", r.Seq)
				}
			}
			return sameMessages("the log", append(first, second...), messages(recs))
		},
	},
	{
		name:        "append-keeps-messages-verbatim",
		explanation: "the log is the archive recall reads: every field of a message (parts, images, tool calls, names, odd characters) comes back as it went in",
		check: func(ctx context.Context, st store.Store, id string) error {
			in := richMessages()
			if _, err := appendAll(ctx, st, id, in...); err != nil {
				return err
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			return sameMessages("the log", richMessages(), messages(recs))
		},
	},
	{
		name:        "append-keeps-bytes",
		explanation: "text is kept byte for byte even where it is not UTF-8 or holds NUL (a tool's raw output, a multi-byte character cut in two): Read, Live, Snapshot and a compaction's Live give back the bytes appended, never U+FFFD in their place, so a history reads the same after a restart as before it",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, byteMessages()...); err != nil {
				return err
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			if err := sameMessages("the log", byteMessages(), messages(recs)); err != nil {
				return err
			}
			live, _, _, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if err := sameMessages("the live history", byteMessages(), live); err != nil {
				return err
			}
			kept := byteMessages()[:2]
			if err := commit(ctx, st, id, 1, 3, kept, store.Lease{}); err != nil {
				return err
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil || len(comps) != 1 {
				return fmt.Errorf("store.Compactions: %d, %v; want 1", len(comps), err)
			}
			if err := sameMessages("compaction 1's Live", kept, comps[0].Live); err != nil {
				return err
			}
			live, _, _, err = st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if err := sameMessages("the live history after compaction 1", append(kept, byteMessages()[3:]...), live); err != nil {
				return err
			}
			snap, err := st.Snapshot(ctx, store.SnapshotID(id, 1))
			if err != nil {
				return fmt.Errorf("store.Snapshot: %w", err)
			}
			return sameMessages("snapshot 1", byteMessages()[:3], snap)
		},
	},
	{
		name:        "no-overwrite",
		explanation: "a store keeps copies: changing a slice after Append, or a record after Read, changes nothing stored, and no record is ever replaced",
		check: func(ctx context.Context, st store.Store, id string) error {
			in := richMessages()
			if _, err := appendAll(ctx, st, id, in...); err != nil {
				return err
			}
			in[0].Content = "changed after Append"
			in[1].MultiContent[0].Text = "changed after Append"
			in[2].ToolCalls[0].Function.Arguments = "{}"
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			recs[1].Message.MultiContent[0].Text = "changed after Read"
			recs[0].Message.Content = "changed after Read"
			again, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			return sameMessages("the log", richMessages(), messages(again))
		},
	},
	{
		name:        "read-ranges",
		explanation: "Read(from, to) returns records from..to inclusive (to 0: through the last), what exists of a range past the end, and refuses from < 1 or to < from with ErrInvalidRange",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("m", 6)...); err != nil {
				return err
			}
			for _, c := range []struct{ from, to, first, n int64 }{
				{2, 4, 2, 3}, {5, 0, 5, 2}, {4, 100, 4, 3}, {6, 6, 6, 1}, {7, 0, 0, 0}, {9, 12, 0, 0},
			} {
				recs, err := st.Read(ctx, id, c.from, c.to)
				if err != nil {
					return fmt.Errorf("store.Read(%d, %d): %w", c.from, c.to, err)
				}
				if int64(len(recs)) != c.n || c.n > 0 && recs[0].Seq != c.first {
					return fmt.Errorf("store.Read(%d, %d): %d records from %v, want %d from %d", c.from, c.to, len(recs), seqs(recs), c.n, c.first)
				}
			}
			for _, c := range [][2]int64{{0, 3}, {-1, 0}, {4, 3}} {
				if _, err := st.Read(ctx, id, c[0], c[1]); !errors.Is(err, store.ErrInvalidRange) {
					return fmt.Errorf("store.Read(%d, %d): %v, want an error wrapping ErrInvalidRange", c[0], c[1], err)
				}
			}
			return nil
		},
	},
	{
		name:        "read-near-the-top",
		explanation: "sequence numbers up to the largest int64 are read without overflow: a range that starts or ends there holds what exists and nothing else, never an error, so a recall tool asked for seq 9223372036854775807 says it has none",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("m", 3)...); err != nil {
				return err
			}
			const top = math.MaxInt64
			for _, c := range []struct{ from, to, n int64 }{{top, 0, 0}, {top, top, 0}, {top - 1, top, 0}, {2, top, 2}, {1, top - 1, 3}} {
				recs, err := st.Read(ctx, id, c.from, c.to)
				if err != nil || int64(len(recs)) != c.n {
					return fmt.Errorf("store.Read(%d, %d): %d records, %v; want %d", c.from, c.to, len(recs), err, c.n)
				}
			}
			if sr, ok := st.(store.Searcher); ok {
				for _, after := range []int64{top, top - 1} {
					if recs, err := sr.Search(ctx, id, "m", after, 0); err != nil || len(recs) != 0 {
						return fmt.Errorf("store.Search after %d: %d records, %v; want none", after, len(recs), err)
					}
				}
			}
			return nil
		},
	},
	{
		name:        "unknown-session-is-empty",
		explanation: "a session never written has an empty log, an empty live history at record 0 after compaction 0, no compactions, and no snapshots (ErrNotFound)",
		check: func(ctx context.Context, st store.Store, id string) error {
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil || len(recs) != 0 {
				return fmt.Errorf("store.Read: %d records, %v", len(recs), err)
			}
			live, through, n, err := st.Live(ctx, id)
			if err != nil || len(live) != 0 || through != 0 || n != 0 {
				return fmt.Errorf("store.Live: %d messages through %d after %d, %v", len(live), through, n, err)
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil || len(comps) != 0 {
				return fmt.Errorf("store.Compactions: %d, %v", len(comps), err)
			}
			if _, err := st.Snapshot(ctx, store.SnapshotID(id, 1)); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("store.Snapshot: %v, want an error wrapping ErrNotFound", err)
			}
			return nil
		},
	},
	{
		name:        "concurrent-appends",
		explanation: "appends racing on one session never share a number, never interleave within one call, and keep each writer's order: nothing is lost or duplicated",
		check: func(ctx context.Context, st store.Store, id string) error {
			const writers, calls = 6, 15
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for c := 0; c < calls; c++ {
						pair := []compact.Message{
							{Role: compact.RoleUser, Content: fmt.Sprintf("w%d c%d a", w, c)},
							{Role: compact.RoleAssistant, Content: fmt.Sprintf("w%d c%d b", w, c)},
						}
						if _, _, err := st.Append(ctx, id, pair...); err != nil {
							errs <- fmt.Errorf("writer %d: Append: %w", w, err)
							return
						}
					}
				}(w)
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				return err
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			if len(recs) != 2*writers*calls {
				return fmt.Errorf("%d records, want %d", len(recs), 2*writers*calls)
			}
			next := make([]int, writers)
			for i := 0; i < len(recs); i += 2 {
				a, b := recs[i], recs[i+1]
				if a.Seq != int64(i+1) || b.Seq != int64(i+2) {
					return fmt.Errorf("records %d and %d numbered %d and %d", i+1, i+2, a.Seq, b.Seq)
				}
				var w, c int
				if _, err := fmt.Sscanf(a.Message.Content, "w%d c%d a", &w, &c); err != nil || w >= writers {
					return fmt.Errorf("record %d: %q is not the first of a pair", a.Seq, a.Message.Content)
				}
				if want := fmt.Sprintf("w%d c%d b", w, c); b.Message.Content != want {
					return fmt.Errorf("record %d: %q, want %q: a call's messages were split", b.Seq, b.Message.Content, want)
				}
				if c != next[w] {
					return fmt.Errorf("record %d: writer %d call %d, want call %d", a.Seq, w, c, next[w])
				}
				next[w]++
			}
			return nil
		},
	},
	{
		name:        "ctx-honoured",
		explanation: "every method gives up on a done context with an error wrapping ctx.Err(), and an append it gave up on is not in the log",
		check: func(ctx context.Context, st store.Store, id string) error {
			if _, err := appendAll(ctx, st, id, text("kept", 2)...); err != nil {
				return err
			}
			done, cancel := context.WithCancel(ctx)
			cancel()
			errs := callAll(done, st, id)
			for _, name := range sortedKeys(errs) {
				if err := errs[name]; !errors.Is(err, context.Canceled) {
					return fmt.Errorf("%s on a cancelled context: %v, want an error wrapping context.Canceled", name, err)
				}
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			if len(recs) != 2 {
				return fmt.Errorf("%d records after a cancelled Append, want 2", len(recs))
			}
			return nil
		},
	},
}

// callAll calls every method of st on session id (and, for a Leaser or a
// Searcher, theirs), returning each error by method name.
func callAll(ctx context.Context, st store.Store, id string) map[string]error {
	errs := map[string]error{}
	_, _, errs["Append"] = st.Append(ctx, id, text("never", 1)...)
	_, errs["Read"] = st.Read(ctx, id, 1, 0)
	_, _, _, errs["Live"] = st.Live(ctx, id)
	_, errs["Commit"] = st.Commit(ctx, id, store.Compaction{N: 1, Through: 1}, store.Lease{})
	_, errs["Compactions"] = st.Compactions(ctx, id)
	_, errs["Snapshot"] = st.Snapshot(ctx, store.SnapshotID(id, 1))
	if l, ok := st.(store.Leaser); ok {
		_, errs["Acquire"] = l.Acquire(ctx, id, leaseTTL)
		_, errs["Renew"] = l.Renew(ctx, id, store.Lease{ID: "x", Fence: 1}, leaseTTL)
		errs["Release"] = l.Release(ctx, id, store.Lease{ID: "x", Fence: 1})
	}
	if s, ok := st.(store.Searcher); ok {
		_, errs["Search"] = s.Search(ctx, id, "never", 0, 0)
	}
	if s, ok := st.(store.Spender); ok {
		_, errs["Spend"] = s.Spend(ctx, id)
	}
	if r, ok := st.(store.Rewriter); ok {
		errs["Rewrite"] = r.Rewrite(ctx, id, []store.Record{{Seq: 1, Message: text("never", 1)[0]}})
	}
	if d, ok := st.(store.Deleter); ok {
		errs["Delete"] = d.Delete(ctx, id) // last: it ends the session
	}
	return errs
}

// seqs lists the numbers of recs.
func seqs(recs []store.Record) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

// richMessages returns messages that use every field a store must keep.
func richMessages() []compact.Message {
	idx := 0
	return []compact.Message{
		{Role: compact.RoleSystem, Content: "You are terse.\nNUL:\x00 tab:\t emoji:🦀 quote:\" backslash:\\ 'single' $1 %s"},
		{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "what is in this picture?"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png", Detail: openai.ImageURLDetailLow}},
		}},
		{Role: compact.RoleAssistant, ReasoningContent: "look first", ToolCalls: []openai.ToolCall{
			{Index: &idx, ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "grep", Arguments: `{"pattern":"TODO","path":"./..."}`}},
			{ID: "call_2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "ls", Arguments: `{}`}},
		}},
		{Role: compact.RoleTool, ToolCallID: "call_1", Name: "grep", Content: strings.Repeat("main.go:12: TODO ", 300)},
		{Role: compact.RoleTool, ToolCallID: "call_2", Name: "ls", Content: ""},
		{Role: compact.RoleAssistant, Content: "done", Refusal: ""},
	}
}

// byteMessages returns messages holding, in every field, bytes that are not
// UTF-8, NUL, and '%' escapes that are text.
func byteMessages() []compact.Message {
	return []compact.Message{
		{Role: compact.RoleUser, Content: "caf\xe9 \x00 100%41 \xff\xfe and U+FFFD: \uFFFD", Name: "n\xe9"},
		{Role: compact.RoleUser, MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "cut \xc3 in two\x00"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/\xff%zz.png", Detail: openai.ImageURLDetailHigh}},
		}},
		{Role: compact.RoleAssistant, ReasoningContent: "surrogate \xed\xa0\x80", Refusal: "no\xff",
			FunctionCall: &openai.FunctionCall{Name: "f\xff", Arguments: "\x00"},
			ToolCalls:    []openai.ToolCall{{ID: "call_\xff", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "gr\xffep", Arguments: "{\"pattern\":\"\xfe\x00\"}"}}}},
		{Role: compact.RoleTool, ToolCallID: "call_\xff", Name: "gr\xffep", Content: "main.go:1: \x00needle\xff here"},
		{Role: compact.RoleAssistant, Content: "all UTF-8, with %41 and %zz in it"},
	}
}
