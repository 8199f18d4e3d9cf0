package session

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
	"github.com/stretchr/testify/require"
)

// logSink keeps every record logged through its handlers, with the
// attributes the logger carried (With) and the record's own, flattened.
type logSink struct {
	mu   sync.Mutex
	recs []logLine
}

type logLine struct {
	msg   string
	attrs map[string]any
}

func (l logLine) String() string { return fmt.Sprintf("%s %v", l.msg, l.attrs) }

func (s *logSink) logger() *slog.Logger { return slog.New(sinkHandler{sink: s}) }

// lines returns the records whose message is msg, in logging order.
func (s *logSink) lines(msg string) []logLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []logLine
	for _, r := range s.recs {
		if r.msg == msg {
			out = append(out, r)
		}
	}
	return out
}

func (s *logSink) all() []logLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]logLine(nil), s.recs...)
}

type sinkHandler struct {
	sink  *logSink
	attrs []slog.Attr
}

func (h sinkHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h sinkHandler) WithGroup(string) slog.Handler            { return h }

func (h sinkHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return sinkHandler{sink: h.sink, attrs: append(h.attrs[:len(h.attrs):len(h.attrs)], as...)}
}

func (h sinkHandler) Handle(_ context.Context, r slog.Record) error {
	line := logLine{msg: r.Message, attrs: map[string]any{}}
	for _, a := range h.attrs {
		line.attrs[a.Key] = a.Value.Resolve().Any()
	}
	r.Attrs(func(a slog.Attr) bool {
		line.attrs[a.Key] = a.Value.Resolve().Any()
		return true
	})
	h.sink.mu.Lock()
	h.sink.recs = append(h.sink.recs, line)
	h.sink.mu.Unlock()
	return nil
}

// gate is a summarizer that blocks until the test lets it go: each call
// announces itself on entered, then waits for a token on release (or for
// release to be closed, which lets every call through).
type gate struct {
	entered chan struct{}
	release chan struct{}
}

func newGate(buffer int) *gate {
	return &gate{entered: make(chan struct{}, buffer), release: make(chan struct{})}
}

func (g *gate) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	g.entered <- struct{}{}
	select {
	case <-g.release:
		return fmt.Sprintf("The agent worked through %d turns.", len(req.Turns)), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// chatHistory is a conversation of n messages (a system prompt, then user
// and assistant turns in alternation), every one of them naming id, so a
// message that lands in the wrong session is easy to spot.
func chatHistory(id string, n int) []compact.Message {
	msgs := []compact.Message{sys("You are agent " + id + ".")}
	for i := 1; i < n; i++ {
		text := fmt.Sprintf("%s turn %d: %s", id, i, strings.Repeat("details ", 10))
		if i%2 == 1 {
			msgs = append(msgs, user(text))
		} else {
			msgs = append(msgs, asst(text))
		}
	}
	return msgs
}

// newTestSession is a session over a test Compressor (byteCounter, a 4,000
// token window) with summarizer s.
func newTestSession(t testing.TB, id string, s compact.Summarizer, opts ...Option) *Session {
	t.Helper()
	sess, err := Open(context.Background(), id, newTestCompressor(s), opts...)
	require.NoError(t, err)
	return sess
}

// compactAsync runs Compress in a goroutine and delivers its outcome.
type outcome struct {
	res *compact.Result
	err error
}

func compactAsync(ctx context.Context, s *Session, opts ...compact.CompressOption) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		res, err := s.Compress(ctx, opts...)
		done <- outcome{res, err}
	}()
	return done
}

// spyEngine is a Compressor that records the session ids it is given and
// the lifecycle hooks it receives.
type spyEngine struct {
	*compact.Compressor
	mu     sync.Mutex
	ids    []string
	events []string
	meta   compact.SessionMeta // what OnSessionStart was told
	final  []compact.Message   // what OnSessionEnd was given
}

func (e *spyEngine) Compress(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
	e.record(&e.ids, compact.ApplyCompressOptions(opts...).SessionID)
	return e.Compressor.Compress(ctx, msgs, opts...)
}

func (e *spyEngine) OnSessionStart(id string, meta compact.SessionMeta) {
	e.record(&e.events, "start "+id)
	e.mu.Lock()
	e.meta = meta
	e.mu.Unlock()
	e.Compressor.OnSessionStart(id, meta)
}
func (e *spyEngine) OnSessionEnd(id string, msgs []compact.Message) {
	e.record(&e.events, "end "+id)
	e.mu.Lock()
	e.final = msgs
	e.mu.Unlock()
}
func (e *spyEngine) OnSessionReset(id string) {
	e.record(&e.events, "reset "+id)
	e.Compressor.OnSessionReset(id)
}

func (e *spyEngine) record(list *[]string, s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	*list = append(*list, s)
}

func (e *spyEngine) seen() (ids, events []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ids...), append([]string(nil), e.events...)
}

// failingStore is a store.Memory whose writes fail as told.
type failingStore struct {
	*store.Memory
	appendErr, commitErr error
}

func (s *failingStore) Append(ctx context.Context, id string, msgs ...compact.Message) (int64, int, error) {
	if s.appendErr != nil {
		return 0, 0, s.appendErr
	}
	return s.Memory.Append(ctx, id, msgs...)
}

func (s *failingStore) Commit(ctx context.Context, id string, c store.Compaction, lease store.Lease) (int64, error) {
	if s.commitErr != nil {
		return 0, s.commitErr
	}
	return s.Memory.Commit(ctx, id, c, lease)
}

// messagesOf returns the messages of recs.
func messagesOf(recs []store.Record) []compact.Message {
	out := make([]compact.Message, len(recs))
	for i, r := range recs {
		out[i] = r.Message
	}
	return out
}

// awaitLimit bounds how long a test waits for an event that synchronises it,
// so that a broken Session fails the test instead of hanging it. It is a
// guard, never a means of synchronisation.
const awaitLimit = 30 * time.Second

// await receives from ch, failing the test if nothing arrives in time.
func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(awaitLimit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		require.Failf(t, "gave up waiting", "for %s", what)
		panic("unreachable")
	}
}

// mustAppend appends msgs to s, failing the test if the store refuses.
func mustAppend(t testing.TB, s *Session, msgs ...compact.Message) {
	t.Helper()
	require.NoError(t, s.Append(context.Background(), msgs...))
}
