package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/session/store"
)

// compacted opens session id on store with opts, appends buildLog and
// compacts it once.
func compacted(st store.Store, id string, opts ...session.Option) (*session.Session, error) {
	ctx := context.Background()
	s, err := session.Open(ctx, id, smallEngine(), append([]session.Option{session.WithStore(st), session.WithRecall(true)}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := s.Append(ctx, buildLog()...); err != nil {
		return nil, err
	}
	_, err = s.Compress(ctx)
	return s, err
}

// A host that keeps its sessions in a Manager deletes one through it.
func ExampleManager_Delete() {
	ctx := context.Background()
	m := session.NewManager(nil, session.WithStore(store.NewMemory()))
	s, _ := m.Get(ctx, "user-7")
	_ = s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: "Forget me."})
	if err := m.Delete(ctx, "user-7"); err != nil {
		fmt.Println(err)
		return
	}
	_, err := m.Get(ctx, "user-7")
	fmt.Println(m.Sessions(), errors.Is(err, store.ErrDeleted))
	// Output:
	// [] true
}

// A Session deletes itself: it closes, then goes from its store.
func ExampleSession_Delete() {
	ctx := context.Background()
	st := store.NewMemory()
	s, _ := session.Open(ctx, "user-9", nil, session.WithStore(st))
	_ = s.Append(ctx, compact.Message{Role: compact.RoleUser, Content: "Forget me."})
	fmt.Println(s.Delete(ctx))
	_, err := st.Read(ctx, "user-9", 1, 0)
	fmt.Println(errors.Is(err, store.ErrDeleted))
	// Output:
	// <nil>
	// true
}

// Retention deletes the archived records a compaction folded once they are
// older than an age; the live history is untouched, and recall says what
// expired.
func ExampleSession_Tools_expired() {
	ctx := context.Background()
	st := store.NewMemory()
	s, err := compacted(st, "agent-7")
	if err != nil {
		fmt.Println(err)
		return
	}
	before := len(s.Messages())
	time.Sleep(2 * time.Millisecond)
	got, err := st.Expire(ctx, store.Retention{Folded: time.Millisecond, Idle: 90 * 24 * time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expired %d records, %d sessions; live history: %d messages, was %d\n", got.Records, got.Sessions, len(s.Messages()), before)
	for _, t := range s.Tools() {
		if t.Definition.Function.Name == session.ToolExpand {
			out, _ := t.Handle(ctx, `{"from":10,"to":12}`)
			fmt.Println(string(out))
		}
	}
	// Output:
	// expired 70 records, 0 sessions; live history: 14 messages, was 14
	// {"messages":[],"expired":[[10,12]],"note":"the messages with the seqs in expired were deleted by the store's retention policy after a compaction folded them: the summary is all that is left of them"}
}

// With WithRedactAtRest, what a compaction folds is redacted on disk; the
// live history keeps its messages verbatim for the model.
func ExampleWithRedactAtRest() {
	ctx := context.Background()
	st := store.NewMemory()
	s, _ := session.Open(ctx, "deploy-1", smallEngine(), session.WithStore(st), session.WithRedactAtRest(true))
	msgs := buildLog()
	msgs[5].Content = "export GITHUB_TOKEN=ghp_x7Kq2mZ9pL4vN8rT1wY6bC3dF5gH0jA2sE4u\n" + msgs[5].Content
	_ = s.Append(ctx, msgs...)
	if _, err := s.Compress(ctx); err != nil {
		fmt.Println(err)
		return
	}
	recs, _ := st.Read(ctx, "deploy-1", 6, 6)
	fmt.Println(strings.SplitN(recs[0].Message.Content, "\n", 2)[0])
	last := s.Messages()[len(s.Messages())-1]
	fmt.Println(last.Content)
	// Output:
	// export GITHUB_TOKEN=ghp_[REDACTED]
	// Which test failed first?
}
