package msgtest

import (
	"context"
	"sync"
)

// Recorder is a summarizer that remembers its requests and answers with
// Out, or Describe's text when Out is empty, or fails with Err. R is the
// request type: compact.SummaryRequest, which this package cannot name
// without importing the root. A Recorder is safe for concurrent use.
type Recorder[R any] struct {
	mu   sync.Mutex
	reqs []R

	// Err, when set, is returned instead of a summary.
	Err error
	// Out, when set, is the summary.
	Out string
	// Describe writes the summary when Out is empty.
	Describe func(R) string
}

// Summarize records req and answers as the fields say; it fails with
// ctx's error once ctx is done.
func (r *Recorder[R]) Summarize(ctx context.Context, req R) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if r.Err != nil {
		return "", r.Err
	}
	if r.Out != "" || r.Describe == nil {
		return r.Out, nil
	}
	return r.Describe(req), nil
}

// Name returns "recorder".
func (r *Recorder[R]) Name() string { return "recorder" }

// Requests returns the requests recorded so far, oldest first.
func (r *Recorder[R]) Requests() []R {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]R(nil), r.reqs...)
}

// Last returns the latest request; it panics when there is none.
func (r *Recorder[R]) Last() R {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs[len(r.reqs)-1]
}
