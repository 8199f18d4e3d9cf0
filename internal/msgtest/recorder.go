package msgtest

import (
	"context"
	"fmt"
	"sync"
)

// Describer writes the summary a Recorder answers with when it is given
// none: a zero-size type with one method, so that a Recorder's zero value
// is ready to use.
type Describer[R any] interface {
	Describe(req R) string
}

// Recorder is a summarizer that remembers its requests and answers with
// Out, or D's description of the request when Out is empty, or fails with
// Err. R is the request type, compact.SummaryRequest, which this package
// cannot name without importing the root. The zero value is ready to use,
// and a Recorder is safe for concurrent use:
//
//	type recorder = msgtest.Recorder[compact.SummaryRequest, describe]
//	r := &recorder{Err: errors.New("503")}
type Recorder[R any, D Describer[R]] struct {
	mu   sync.Mutex
	reqs []R

	// Err, when set, is returned instead of a summary.
	Err error
	// Out, when set, is the summary.
	Out string
}

// Summarize records req and answers as the fields say; it fails with
// ctx's error once ctx is done.
func (r *Recorder[R, D]) Summarize(ctx context.Context, req R) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if r.Err != nil {
		return "", r.Err
	}
	if r.Out != "" {
		return r.Out, nil
	}
	var d D
	return d.Describe(req), nil
}

// Name returns "recorder".
func (r *Recorder[R, D]) Name() string { return "recorder" }

// SetErr changes what the next calls fail with (nil: they succeed).
func (r *Recorder[R, D]) SetErr(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Err = err
}

// Requests returns the requests recorded so far, oldest first.
func (r *Recorder[R, D]) Requests() []R {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]R(nil), r.reqs...)
}

// Calls returns how many requests were recorded.
func (r *Recorder[R, D]) Calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// Last returns the latest request; it panics when there is none.
func (r *Recorder[R, D]) Last() R {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reqs[len(r.reqs)-1]
}

// Summary is the summary a Describer of the tests writes for a request of
// turns turns, a previous summary of previous bytes and focus: what it was
// given, deterministically.
func Summary(turns, previous int, focus string) string {
	return fmt.Sprintf("Summary of %d turns (previous: %d bytes, focus %q).", turns, previous, focus)
}
