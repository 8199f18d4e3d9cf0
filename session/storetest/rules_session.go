package storetest

import (
	"context"
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/tokens"
)

var sessionRules = []rule{
	{
		name:        "sessions-share-the-store",
		explanation: "a Session keeps its conversation in the store: a compaction under one Session, and messages appended by another on the same store (another process), all end up in one live history, in log order, with nothing lost from the log",
		check: func(ctx context.Context, st session.Store, id string) error {
			a, err := session.New(id, smallEngine(), session.WithStore(st))
			if err != nil {
				return err
			}
			b, err := session.New(id, smallEngine(), session.WithStore(st))
			if err != nil {
				return err
			}
			turns := conversation(id, 60)
			for i, m := range turns {
				s := a
				if i%3 == 2 {
					s = b
				}
				if err := s.Append(ctx, m); err != nil {
					return fmt.Errorf("store.Append %d: %w", i, err)
				}
			}
			if _, err := a.Compress(ctx, compact.Force()); err != nil {
				return fmt.Errorf("session.Compress: %w", err)
			}
			late := compact.Message{Role: compact.RoleUser, Content: id + " after the compaction"}
			if err := b.Append(ctx, late); err != nil {
				return fmt.Errorf("store.Append after the compaction: %w", err)
			}
			live, _, n, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if n != 1 || len(live) >= len(turns) || live[len(live)-1].Content != late.Content {
				return fmt.Errorf("the store's live history: %d messages after compaction %d, ending %q", len(live), n, live[len(live)-1].Content)
			}
			for name, s := range map[string]*session.Session{"the compacting session": a, "the other": b} {
				if err := s.Sync(ctx); err != nil {
					return fmt.Errorf("session.Sync: %w", err)
				}
				if err := sameMessages(name, live, s.Messages()); err != nil {
					return err
				}
			}
			recs, err := st.Read(ctx, id, 1, 0)
			if err != nil {
				return fmt.Errorf("store.Read: %w", err)
			}
			return sameMessages("the log", append(turns, late), messages(recs))
		},
	},
}

// smallEngine compacts anything forced, with a summary that names what it
// folded.
func smallEngine() compact.ContextEngine {
	return compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimate{}),
		compact.WithSummarizer(compact.SummarizerFunc(func(_ context.Context, req compact.SummaryRequest) (string, error) {
			return fmt.Sprintf("The user and the agent talked through %d messages.", len(req.Turns)), nil
		})))
}

// conversation makes n alternating user and assistant turns.
func conversation(id string, n int) []compact.Message {
	out := make([]compact.Message, n)
	for i := range out {
		role := compact.RoleUser
		if i%2 == 1 {
			role = compact.RoleAssistant
		}
		out[i] = compact.Message{Role: role, Content: fmt.Sprintf("%s turn %d: the build log says step %d passed", id, i, i)}
	}
	return out
}
