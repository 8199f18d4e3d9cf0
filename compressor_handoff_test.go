package compact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact/handoff"
	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var handoffClock = func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC) }

// moreWork is the round of work a conversation does between compactions:
// a user request, tool rounds, an answer.
func moreWork(round int) []Message {
	msgs := []Message{user(fmt.Sprintf("Round %d: now fix the next failing package.", round))}
	for i := 0; i < 12; i++ {
		id := fmt.Sprintf("r%dc%d", round, i)
		msgs = append(msgs, call(fmt.Sprintf("round %d step %d", round, i), id, "bash"),
			result(id, strings.Repeat(fmt.Sprintf("round %d output line %d\n", round, i), 20)))
	}
	return append(msgs, asst(fmt.Sprintf("Round %d done.", round)))
}

// compactRounds compacts a growing conversation n times with c, checking
// the contracts each time, and returns the results.
func compactRounds(t *testing.T, c *Compressor, n int, opts ...CompressOption) []*Result {
	t.Helper()
	msgs := longSession(30)
	var out []*Result
	for i := 0; i < n; i++ {
		before := Clone(msgs)
		res, err := c.Compress(context.Background(), msgs, append(opts, Force())...)
		require.NoError(t, err, "compaction %d", i+1)
		require.NoError(t, checkContracts(msgs, res), "compaction %d", i+1)
		require.True(t, reflect.DeepEqual(before, msgs), "input unchanged")
		out = append(out, res)
		msgs = append(Clone(res.Messages), moreWork(i)...)
	}
	return out
}

// handedOff lists which compactions (1-based) reported a handoff.
func handedOff(results []*Result) []int {
	var out []int
	for i, r := range results {
		if r.Handoff != nil {
			out = append(out, i+1)
		}
	}
	return out
}

func newHandoffCompressor(p handoff.Policy, opts ...Option) *Compressor {
	return newTestCompressor(&recorder{}, append([]Option{WithHandoff(p), WithClock(handoffClock)}, opts...)...)
}

// Without WithHandoff nothing happens and Status says nothing; a policy's
// bounds below their least are raised and reported.
func TestHandoffPolicyDefaults(t *testing.T) {
	odd := New(WithHandoff(handoff.Policy{MaxBytes: 10, MessageBytes: 1}))
	assert.Equal(t, []string{"WithHandoff: MaxBytes(10): below 8192, 8192 kept",
		"WithHandoff: MessageBytes(1): below 256, 256 kept"}, odd.Status().Adjusted)

	c := newTestCompressor(&recorder{})
	assert.Empty(t, handedOff(compactRounds(t, c, 4)))
	s := c.Status()
	assert.Zero(t, s.Handoffs)
	assert.Zero(t, s.HandoffsLeft)
	assert.Empty(t, s.HandoffReason)
}

func TestHandoffPromptUser(t *testing.T) {
	root := t.TempDir()
	var logs bytes.Buffer
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: root, Dir: "handoffs"},
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	tasks := WithOpenTasks([]string{"Fix internal/cache", "Release v2"})
	baseline := compactRounds(t, newTestCompressor(&recorder{}), 3, WithSessionID("sess-1"), tasks)
	results := compactRounds(t, c, 3, WithSessionID("sess-1"), WithParentSessionID("sess-0"), tasks)

	require.Equal(t, []int{2}, handedOff(results), "after two compactions, once")
	h := results[1].Handoff
	assert.Equal(t, handoff.PromptUser, h.Mode)
	assert.False(t, h.Manual)
	assert.Nil(t, h.Continuation)
	assert.Equal(t, "sess-1", h.SessionID)
	assert.Equal(t, "handoff-sess-1-20250304T050607Z-1.md", filepath.Base(h.Path))
	written, err := os.ReadFile(h.Path)
	require.NoError(t, err)
	assert.Equal(t, h.Packet, string(written))
	for _, want := range []string{"- Session: sess-1\n", "- Parent session: sess-0\n", "- Compactions so far: 2\n",
		"- [ ] Fix internal/cache\n", "Round 0: now fix the next failing package.", "Round 0 done.",
		fmt.Sprintf("- Approximate size: %d tokens\n", results[1].TokensBefore)} {
		assert.Contains(t, h.Packet, want)
	}
	summary, _, _ := msg.SplitMerged(results[1].Messages[results[1].SummaryIndex])
	assert.Contains(t, h.Packet, strings.TrimSpace(summary[:40]))

	for i := range results {
		assert.True(t, equalHistory(baseline[i].Messages, results[i].Messages), "compaction %d is ordinary", i+1)
	}
	s := c.Status()
	assert.Equal(t, 1, s.Handoffs)
	assert.Equal(t, 0, s.HandoffsLeft)
	assert.Equal(t, "handoff quota spent (1 of 1); compacting as usual", s.HandoffReason)
	assert.Contains(t, logs.String(), `msg="handoff written" session=sess-1 mode=prompt-user`)
}

func TestHandoffFreshSession(t *testing.T) {
	root := t.TempDir()
	var started []handoff.Report
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: root, Mode: handoff.FreshSession,
		Start: func(ctx context.Context, h handoff.Report) (string, error) {
			started = append(started, h)
			return "sess-2", nil
		}})
	baseline := compactRounds(t, newTestCompressor(&recorder{}), 3)
	results := compactRounds(t, c, 3, WithSessionID("sess-1"))

	require.Equal(t, []int{2}, handedOff(results))
	h := results[1].Handoff
	assert.Equal(t, handoff.FreshSession, h.Mode)
	assert.Equal(t, "sess-2", h.ContinuationID)
	require.Len(t, started, 1)
	assert.Equal(t, "sess-1", started[0].SessionID)
	assert.Equal(t, h.Path, started[0].Path)

	// The continuation is the host's system prompt, byte for byte (the
	// compaction note the history carries by now is gone), and the packet.
	require.Contains(t, Text(results[0].Messages[0]), CompactionNote)
	require.Len(t, h.Continuation, 2)
	assert.Equal(t, sys("You are a coding agent."), h.Continuation[0])
	assert.Equal(t, Message{Role: RoleUser, Content: h.Packet}, h.Continuation[1])
	assert.NoError(t, Validate(h.Continuation))
	written, err := os.ReadFile(h.Path)
	require.NoError(t, err)
	assert.Equal(t, h.Packet, string(written))

	for i := range results {
		assert.True(t, equalHistory(baseline[i].Messages, results[i].Messages), "Messages stays the ordinary compaction")
	}
	assert.Equal(t, 1, c.Status().Handoffs)
}

// A quota of two gives exactly two handoffs, then ordinary compaction. In
// fresh-session mode the count of compactions starts again after each.
func TestHandoffQuota(t *testing.T) {
	tests := []struct {
		mode handoff.Mode
		want []int
	}{
		{handoff.PromptUser, []int{2, 3}},
		{handoff.FreshSession, []int{2, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			root := t.TempDir()
			c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: root, Mode: tt.mode, MaxPerSession: 2})
			results := compactRounds(t, c, 7, WithSessionID("s"))
			assert.Equal(t, tt.want, handedOff(results))
			assert.Len(t, msgtest.Tree(t, root), 2, "two packets")
			assert.NotEqual(t, results[tt.want[0]-1].Handoff.Path, results[tt.want[1]-1].Handoff.Path)
			s := c.Status()
			assert.Equal(t, 2, s.Handoffs)
			assert.Equal(t, 0, s.HandoffsLeft)
			assert.Contains(t, s.HandoffReason, "quota spent (2 of 2)")

			c.OnSessionReset("s")
			assert.Equal(t, 2, c.Status().HandoffsLeft, "a reset conversation starts over")
		})
	}
}

// A handoff that fails anywhere is not counted, leaves no packet, and the
// compaction comes back exactly as it would without handoffs.
func TestHandoffFailureFallsBackToOrdinaryCompaction(t *testing.T) {
	failStart := func(ctx context.Context, h handoff.Report) (string, error) {
		return "", errors.New("session store down")
	}
	tests := []struct {
		name   string
		policy func(t *testing.T, root string) handoff.Policy
		reason string
	}{
		{"no root", func(t *testing.T, root string) handoff.Policy {
			return handoff.Policy{Enabled: true}
		}, "no root directory"},
		{"root is a file", func(t *testing.T, root string) handoff.Policy {
			file := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(file, nil, 0o600))
			return handoff.Policy{Enabled: true, Root: file}
		}, "is not a directory"},
		{"directory escapes", func(t *testing.T, root string) handoff.Policy {
			return handoff.Policy{Enabled: true, Root: root, Dir: "../elsewhere", Mode: handoff.FreshSession}
		}, `holds ".."`},
		{"linked directory", func(t *testing.T, root string) handoff.Policy {
			msgtest.SymlinkOrSkip(t, t.TempDir(), filepath.Join(root, "h"))
			return handoff.Policy{Enabled: true, Root: root, Dir: "h"}
		}, "symbolic link"},
		{"continuation fails to start", func(t *testing.T, root string) handoff.Policy {
			return handoff.Policy{Enabled: true, Root: root, Mode: handoff.FreshSession, Start: failStart}
		}, "session store down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := tt.policy(t, root)
			before := msgtest.Tree(t, root)
			c := newHandoffCompressor(p)
			baseline := compactRounds(t, newTestCompressor(&recorder{}), 3)
			results := compactRounds(t, c, 3)

			assert.Empty(t, handedOff(results))
			for i := range results {
				assert.True(t, equalHistory(baseline[i].Messages, results[i].Messages), "compaction %d is ordinary", i+1)
			}
			assert.Equal(t, before, msgtest.Tree(t, root), "no packet left behind")
			s := c.Status()
			assert.Equal(t, 0, s.Handoffs)
			assert.Equal(t, 1, s.HandoffsLeft)
			assert.Contains(t, s.HandoffReason, "last handoff failed, compacted as usual")
			assert.Contains(t, s.HandoffReason, tt.reason)
		})
	}
}

// A failed handoff is tried again at the next compaction and counts once it
// succeeds.
func TestHandoffFailureIsRetriedAndCountsOnSuccess(t *testing.T) {
	calls := 0
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: t.TempDir(), Mode: handoff.FreshSession,
		Start: func(ctx context.Context, h handoff.Report) (string, error) {
			calls++
			if calls == 1 {
				return "", errors.New("try later")
			}
			return "child", nil
		}})
	results := compactRounds(t, c, 4)
	assert.Equal(t, []int{3}, handedOff(results))
	assert.Equal(t, 2, calls)
	s := c.Status()
	assert.Equal(t, 1, s.Handoffs)
	assert.Equal(t, "handoff quota spent (1 of 1); compacting as usual", s.HandoffReason, "the failure is forgotten")
}

func TestHandoffReadOnlyDirectoryFallsBack(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	root := t.TempDir()
	require.NoError(t, os.Chmod(root, 0o500))
	t.Cleanup(func() { os.Chmod(root, 0o700) })
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: root})
	assert.Empty(t, handedOff(compactRounds(t, c, 3)))
	assert.Equal(t, 0, c.Status().Handoffs)
}

func TestManualHandoffPacketChangesNothing(t *testing.T) {
	root := t.TempDir()
	c := newHandoffCompressor(handoff.Policy{Root: root, Dir: "manual"}) // automatic handoffs stay off
	results := compactRounds(t, c, 1)
	msgs := append(Clone(results[0].Messages), moreWork(7)...)
	before, status := Clone(msgs), c.Status()

	h, err := c.ManualHandoffPacket(msgs, "please pick up round 7", WithSessionID("s9"),
		WithOpenTasks([]string{"ship it"}))
	require.NoError(t, err)
	assert.True(t, h.Manual)
	assert.Equal(t, "handoff-s9-20250304T050607Z-manual.md", filepath.Base(h.Path))
	assert.Equal(t, filepath.Join(root, "manual"), filepath.Dir(h.Path))
	for _, want := range []string{"> please pick up round 7\n", "- [ ] ship it\n", "- Compactions so far: 1\n", "Round 7 done."} {
		assert.Contains(t, h.Packet, want)
	}
	summary, _, _ := msg.SplitMerged(results[0].Messages[results[0].SummaryIndex])
	assert.Contains(t, h.Packet, strings.SplitN(summary, "\n", 2)[0], "the latest summary")
	assert.True(t, reflect.DeepEqual(before, msgs), "messages untouched")
	assert.Equal(t, status, c.Status(), "state untouched")

	// A second one on the same second gets a new name.
	h2, err := c.ManualHandoffPacket(msgs, "", WithSessionID("s9"))
	require.NoError(t, err)
	assert.Equal(t, "handoff-s9-20250304T050607Z-manual-2.md", filepath.Base(h2.Path))

	_, err = newTestCompressor(&recorder{}).ManualHandoffPacket(msgs, "note")
	assert.ErrorIs(t, err, handoff.ErrUnsafePath, "no root, no packet")
}

// In preflight the incoming message is the request the packet leads with.
func TestHandoffQuotesTheIncomingRequest(t *testing.T) {
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: t.TempDir(), AfterCompactions: 1})
	res, err := c.Compress(context.Background(), longSession(30), WithIncoming(user("Now port it to Windows.")))
	require.NoError(t, err)
	require.NotNil(t, res.Handoff)
	p := res.Handoff.Packet
	req := p[strings.Index(p, "## Latest user request"):]
	assert.True(t, strings.HasPrefix(req, "## Latest user request\n\n```text\nNow port it to Windows.\n```\n"))
}

// Manual packets may be asked for while compactions run.
func TestManualHandoffPacketDuringCompaction(t *testing.T) {
	root := t.TempDir()
	c := newHandoffCompressor(handoff.Policy{Enabled: true, Root: root, AfterCompactions: 1, MaxPerSession: 3})
	msgs := longSession(30)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 3; i++ {
			_, err := c.Compress(context.Background(), msgs, Force())
			assert.NoError(t, err)
		}
	}()
	for i := 0; i < 5; i++ {
		_, err := c.ManualHandoffPacket(msgs, "", WithSessionID("s"))
		require.NoError(t, err)
	}
	<-done
	assert.Len(t, msgtest.Tree(t, root), 8, "three automatic packets and five manual ones")
	assert.Equal(t, 3, c.Status().Handoffs)
}
