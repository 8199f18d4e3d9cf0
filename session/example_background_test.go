package session_test

import (
	"context"
	"fmt"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session"
	"github.com/contextkit/compact/tokens"
)

// With background compaction the host's loop is the same; the summary is
// written while requests go on.
func ExampleWithBackground() {
	ctx := context.Background()
	reading, ready := make(chan struct{}, 1), make(chan struct{})
	slow := compact.SummarizerFunc(func(ctx context.Context, req compact.SummaryRequest) (string, error) {
		reading <- struct{}{}
		select { // a model taking its time
		case <-ready:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("The agent worked through %d turns.", len(req.Turns)), nil
	})
	engine := compact.New(compact.WithContextWindow(4000), compact.WithThresholdBounds(0, 0),
		compact.WithTokenCounter(tokens.Estimator{}), compact.WithSummarizer(slow))
	s, err := session.Open(ctx, "agent-7", engine, session.WithBackground(true), session.WithSoftMark(0.6))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close(ctx)

	msgs := conversation(200)
	started := -1
	for i, m := range msgs {
		if err := s.Append(ctx, m); err != nil {
			fmt.Println(err)
			return
		}
		// Before every request, as without background compaction:
		if s.ShouldCompress() {
			if _, err := s.Compress(ctx); err != nil {
				fmt.Println(err)
			}
		}
		req := s.Messages()
		if started < 0 && s.Status().InBackground {
			started = i
			st := s.Status()
			fmt.Printf("message %d: %d tokens, past the soft mark of %d: compacting in the background\n",
				i, st.RequestTokens, st.SoftMark)
			<-reading // the summarizer has the history (only the example waits, to print the same every time)
		}
		if started >= 0 && i == started+4 {
			fmt.Println("four messages later the request is still the live history:", len(req) == i+1)
			break
		}
	}

	close(ready) // the summary is written
	for s.Status().InBackground {
		time.Sleep(time.Millisecond) // only the example waits, to show the result
	}
	st := s.Status()
	next := s.Messages()
	fmt.Println("the next request:", len(next), "messages, ending with the four:",
		next[len(next)-1].Content == msgs[started+4].Content && next[len(next)-4].Content == msgs[started+1].Content)
	fmt.Println("compacted in the background:", st.BackgroundCompactions, "request paths that waited:", st.Waits.Count)
	// Output:
	// message 31: 1368 tokens, past the soft mark of 1350: compacting in the background
	// four messages later the request is still the live history: true
	// the next request: 18 messages, ending with the four: true
	// compacted in the background: 1 request paths that waited: 0
}

// A host compacts a session whose user has gone away, once the provider's
// prompt cache has expired and rewriting the history costs nothing extra.
func ExampleSession_CompressIfIdle() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, err := session.Open(ctx, "agent-7", smallEngine(), session.WithClock(clock),
		session.WithIdleAfter(10*time.Minute))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Append(ctx, conversation(40)...); err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Messages() // a request
	fmt.Println("automatic compaction due:", s.ShouldCompress())

	now = now.Add(5 * time.Minute)
	res, _ := s.CompressIfIdle(ctx)
	fmt.Println("after 5 minutes:", res.Skipped)

	now = now.Add(6 * time.Minute)
	res, err = s.CompressIfIdle(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("after 11 minutes:", res.MessagesBefore, "messages ->", len(res.Messages))
	fmt.Println("idle compactions:", s.Status().IdleCompactions)
	// Output:
	// automatic compaction due: false
	// after 5 minutes: active 5m0s ago, idle after 10m0s
	// after 11 minutes: 40 messages -> 14
	// idle compactions: 1
}
