package storetest

import (
	"context"
	"fmt"
	"slices"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

var sessionRules = []rule{
	{
		name:        "compactions-account-for-their-records",
		explanation: "each compaction a Session commits records the range its summary stands for, and the store keeps it, so that Audit finds, from the store alone, every record a compaction covers folded or carried",
		check: func(ctx context.Context, st store.Store, id string) error {
			s, err := openWith(ctx, st, id, nil)
			if err != nil {
				return err
			}
			turns := conversation(id, 120)
			for i := 0; i < 90; i += 30 {
				if err := s.Append(ctx, turns[i:i+30]...); err != nil {
					return fmt.Errorf("session.Append: %w", err)
				}
				if _, err := s.Compress(ctx, compact.Force()); err != nil {
					return fmt.Errorf("session.Compress: %w", err)
				}
			}
			// A partial compaction after the summary keeps it and writes a
			// second one: the range covers both.
			if err := s.Append(ctx, turns[90:]...); err != nil {
				return fmt.Errorf("session.Append: %w", err)
			}
			after := slices.IndexFunc(s.Messages(), compact.IsSummary) + 4
			if _, err := s.CompressFrom(ctx, after); err != nil {
				return fmt.Errorf("session.CompressFrom(%d): %w", after, err)
			}
			comps, err := st.Compactions(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Compactions: %w", err)
			}
			for _, c := range comps {
				if c.FoldedThrough == 0 {
					return fmt.Errorf("compaction %d records no folded range", c.N)
				}
			}
			return Audit(ctx, st, id)
		},
	},
	{
		name:        "open-reads-the-history",
		explanation: "a Session opened on an id the store knows holds its live history at once, so a process that restarts never sees an empty conversation and never sends one",
		check: func(ctx context.Context, st store.Store, id string) error {
			a, err := openWith(ctx, st, id, conversation(id, 30))
			if err != nil {
				return err
			}
			if _, err := a.Compress(ctx, compact.Force()); err != nil {
				return fmt.Errorf("session.Compress: %w", err)
			}
			restarted, err := openWith(ctx, st, id, nil)
			if err != nil {
				return err
			}
			live, _, _, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if restarted.Len() == 0 || restarted.Tokens() == 0 {
				return fmt.Errorf("a Session opened on a stored id holds %d messages, %d tokens", restarted.Len(), restarted.Tokens())
			}
			return sameMessages("the reopened session", live, restarted.Messages())
		},
	},
	{
		name:        "a-session-notices-another-compaction",
		explanation: "a Session's view is its store's live history after every call that succeeds: when another process compacted, the next Append reads the compacted history instead of carrying on from the old one",
		check: func(ctx context.Context, st store.Store, id string) error {
			a, err := openWith(ctx, st, id, conversation(id, 30))
			if err != nil {
				return err
			}
			b, err := openWith(ctx, st, id, nil)
			if err != nil {
				return err
			}
			if _, err := b.Compress(ctx, compact.Force()); err != nil {
				return fmt.Errorf("session.Compress: %w", err)
			}
			if err := a.Append(ctx, compact.Message{Role: compact.RoleUser, Content: id + " one more"}); err != nil {
				return fmt.Errorf("session.Append after the other compacted: %w", err)
			}
			live, _, n, err := st.Live(ctx, id)
			if err != nil {
				return fmt.Errorf("store.Live: %w", err)
			}
			if n != 1 {
				return fmt.Errorf("the store holds %d compactions, want 1", n)
			}
			if err := sameMessages("the view of the session that did not compact", live, a.Messages()); err != nil {
				return err
			}
			if want := tokens.CountMessages(tokens.Estimator{}, live); a.Tokens() != want {
				return fmt.Errorf("the session that did not compact counts %d tokens, want %d", a.Tokens(), want)
			}
			return nil
		},
	},
	{
		name:        "sessions-share-the-store",
		explanation: "a Session keeps its conversation in the store: a compaction under one Session, and messages appended by another on the same store (another process), all end up in one live history, in log order, with nothing lost from the log",
		check: func(ctx context.Context, st store.Store, id string) error {
			a, err := session.Open(ctx, id, smallEngine(), session.WithStore(st))
			if err != nil {
				return err
			}
			b, err := session.Open(ctx, id, smallEngine(), session.WithStore(st))
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

// openWith opens session id on st, as another process would, and appends
// msgs to it one by one.
func openWith(ctx context.Context, st store.Store, id string, msgs []compact.Message) (*session.Session, error) {
	s, err := session.Open(ctx, id, smallEngine(), session.WithStore(st))
	if err != nil {
		return nil, fmt.Errorf("session.Open: %w", err)
	}
	for _, m := range msgs {
		if err := s.Append(ctx, m); err != nil {
			return nil, fmt.Errorf("session.Append: %w", err)
		}
	}
	return s, nil
}

// smallEngine compacts anything forced, with a summary that names what it
// folded.
func smallEngine() compact.ContextEngine {
	return compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}),
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
