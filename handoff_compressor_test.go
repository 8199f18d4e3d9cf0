package compact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contextkit/compact/internal/msg"
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

func newHandoffCompressor(p HandoffPolicy, opts ...Option) *Compressor {
	return newTestCompressor(&recorder{}, append([]Option{WithHandoff(p), WithClock(handoffClock)}, opts...)...)
}

func TestHandoffPolicyDefaults(t *testing.T) {
	p := HandoffPolicy{}.withDefaults()
	assert.False(t, p.Enabled, "off by default")
	assert.Equal(t, HandoffPromptUser, p.Mode)
	assert.Equal(t, 2, p.AfterCompactions)
	assert.Equal(t, 1, p.MaxPerSession)
	assert.Equal(t, 32<<10, p.MaxBytes)
	assert.Equal(t, defaultHandoffMessages, p.MaxMessages)
	assert.Equal(t, defaultHandoffMessageBytes, p.MessageBytes)
	assert.Equal(t, "", p.Dir)

	odd := HandoffPolicy{AfterCompactions: -1, MaxPerSession: -3, MaxBytes: 10, MessageBytes: 1}.withDefaults()
	assert.Equal(t, 2, odd.AfterCompactions)
	assert.Equal(t, 1, odd.MaxPerSession)
	assert.Equal(t, minHandoffBytes, odd.MaxBytes)
	assert.Equal(t, minHandoffMessageBytes, odd.MessageBytes)

	// Without WithHandoff nothing happens and Status says nothing.
	c := newTestCompressor(&recorder{})
	assert.Empty(t, handedOff(compactRounds(t, c, 4)))
	s := c.Status()
	assert.Zero(t, s.Handoffs)
	assert.Zero(t, s.HandoffsLeft)
	assert.Empty(t, s.HandoffReason)
}

func TestHandoffModeText(t *testing.T) {
	for _, m := range []HandoffMode{HandoffPromptUser, HandoffFreshSession} {
		b, err := json.Marshal(m)
		require.NoError(t, err)
		var back HandoffMode
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, m, back)
	}
	var m HandoffMode
	require.NoError(t, m.UnmarshalText([]byte(" Fresh_Session ")))
	assert.Equal(t, HandoffFreshSession, m)
	assert.Error(t, m.UnmarshalText([]byte("sometimes")))
	_, err := HandoffMode(7).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "HandoffMode(7)", HandoffMode(7).String())
}

func TestHandoffPromptUser(t *testing.T) {
	root := t.TempDir()
	var logs bytes.Buffer
	c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: root, Dir: "handoffs"},
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	tasks := WithOpenTasks([]string{"Fix internal/cache", "Release v2"})
	baseline := compactRounds(t, newTestCompressor(&recorder{}), 3, WithSessionID("sess-1"), tasks)
	results := compactRounds(t, c, 3, WithSessionID("sess-1"), WithParentSessionID("sess-0"), tasks)

	require.Equal(t, []int{2}, handedOff(results), "after two compactions, once")
	h := results[1].Handoff
	assert.Equal(t, HandoffPromptUser, h.Mode)
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
	var started []Handoff
	c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: root, Mode: HandoffFreshSession,
		Start: func(ctx context.Context, h Handoff) (string, error) {
			started = append(started, h)
			return "sess-2", nil
		}})
	baseline := compactRounds(t, newTestCompressor(&recorder{}), 3)
	results := compactRounds(t, c, 3, WithSessionID("sess-1"))

	require.Equal(t, []int{2}, handedOff(results))
	h := results[1].Handoff
	assert.Equal(t, HandoffFreshSession, h.Mode)
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

func TestHandoffContinuationKeepsEverySystemMessage(t *testing.T) {
	parts := partsMsg(RoleSystem, "You are an agent.", "Be brief.")
	in := []Message{parts, {Role: msg.RoleDeveloper, Content: "dev rules"}, user("hi")}
	in[0] = appendNote(in[0], CompactionNote)
	cont, err := continuation(in, CompactionNote, "packet")
	require.NoError(t, err)
	assert.Equal(t, []Message{partsMsg(RoleSystem, "You are an agent.", "Be brief."),
		{Role: msg.RoleDeveloper, Content: "dev rules"}, user("packet")}, cont)

	cont, err = continuation([]Message{user("no system prompt")}, CompactionNote, "packet")
	require.NoError(t, err)
	assert.Equal(t, []Message{user("packet")}, cont)
}

// A quota of two gives exactly two handoffs, then ordinary compaction. In
// fresh-session mode the count of compactions starts again after each.
func TestHandoffQuota(t *testing.T) {
	tests := []struct {
		mode HandoffMode
		want []int
	}{
		{HandoffPromptUser, []int{2, 3}},
		{HandoffFreshSession, []int{2, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			root := t.TempDir()
			c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: root, Mode: tt.mode, MaxPerSession: 2})
			results := compactRounds(t, c, 7, WithSessionID("s"))
			assert.Equal(t, tt.want, handedOff(results))
			assert.Len(t, tree(t, root), 2, "two packets")
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
	failStart := func(ctx context.Context, h Handoff) (string, error) { return "", errors.New("session store down") }
	tests := []struct {
		name   string
		policy func(t *testing.T, root string) HandoffPolicy
		reason string
	}{
		{"no root", func(t *testing.T, root string) HandoffPolicy {
			return HandoffPolicy{Enabled: true}
		}, "no root directory"},
		{"root is a file", func(t *testing.T, root string) HandoffPolicy {
			file := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(file, nil, 0o600))
			return HandoffPolicy{Enabled: true, Root: file}
		}, "is not a directory"},
		{"directory escapes", func(t *testing.T, root string) HandoffPolicy {
			return HandoffPolicy{Enabled: true, Root: root, Dir: "../elsewhere", Mode: HandoffFreshSession}
		}, `holds ".."`},
		{"linked directory", func(t *testing.T, root string) HandoffPolicy {
			symlinkOrSkip(t, t.TempDir(), filepath.Join(root, "h"))
			return HandoffPolicy{Enabled: true, Root: root, Dir: "h"}
		}, "symbolic link"},
		{"continuation fails to start", func(t *testing.T, root string) HandoffPolicy {
			return HandoffPolicy{Enabled: true, Root: root, Mode: HandoffFreshSession, Start: failStart}
		}, "session store down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := tt.policy(t, root)
			before := tree(t, root)
			c := newHandoffCompressor(p)
			baseline := compactRounds(t, newTestCompressor(&recorder{}), 3)
			results := compactRounds(t, c, 3)

			assert.Empty(t, handedOff(results))
			for i := range results {
				assert.True(t, equalHistory(baseline[i].Messages, results[i].Messages), "compaction %d is ordinary", i+1)
			}
			assert.Equal(t, before, tree(t, root), "no packet left behind")
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
	c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: t.TempDir(), Mode: HandoffFreshSession,
		Start: func(ctx context.Context, h Handoff) (string, error) {
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
	c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: root})
	assert.Empty(t, handedOff(compactRounds(t, c, 3)))
	assert.Equal(t, 0, c.Status().Handoffs)
}

func TestManualHandoffPacketChangesNothing(t *testing.T) {
	root := t.TempDir()
	c := newHandoffCompressor(HandoffPolicy{Root: root, Dir: "manual"}) // automatic handoffs stay off
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
	assert.ErrorIs(t, err, ErrUnsafePath, "no root, no packet")
}

func TestParseHandoffCommand(t *testing.T) {
	tests := []struct {
		in, note string
		ok       bool
	}{
		{"/handoff-packet", "", true},
		{"  /handoff-packet   wrap up the release  ", "wrap up the release", true},
		{"/handoff-packet\nmulti\nline", "multi\nline", true},
		{"/handoff-packets", "", false},
		{"/handoff", "", false},
		{"please /handoff-packet", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		note, ok := ParseHandoffCommand(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.note, note, tt.in)
	}
}

// In preflight the incoming message is the request the packet leads with.
func TestHandoffQuotesTheIncomingRequest(t *testing.T) {
	c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: t.TempDir(), AfterCompactions: 1})
	res, err := c.Compress(context.Background(), longSession(30), WithIncoming(user("Now port it to Windows.")))
	require.NoError(t, err)
	require.NotNil(t, res.Handoff)
	p := res.Handoff.Packet
	req := p[strings.Index(p, "## Latest user request"):]
	assert.True(t, strings.HasPrefix(req, "## Latest user request\n\n```text\nNow port it to Windows.\n```\n"))
}

// A policy loads from a configuration file; Start is the host's to set.
func TestHandoffPolicyFromJSON(t *testing.T) {
	var p HandoffPolicy
	require.NoError(t, json.Unmarshal([]byte(`{"Enabled": true, "Mode": "fresh-session", "AfterCompactions": 3, "Root": "/var/lib/agent"}`), &p))
	assert.Equal(t, HandoffPolicy{Enabled: true, Mode: HandoffFreshSession, AfterCompactions: 3, Root: "/var/lib/agent"}, p)
	p.Start = func(context.Context, Handoff) (string, error) { return "", nil }
	_, err := json.Marshal(p)
	assert.NoError(t, err)
}

// Manual packets may be asked for while compactions run.
func TestManualHandoffPacketDuringCompaction(t *testing.T) {
	root := t.TempDir()
	c := newHandoffCompressor(HandoffPolicy{Enabled: true, Root: root, AfterCompactions: 1, MaxPerSession: 3})
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
	assert.Len(t, tree(t, root), 8, "three automatic packets and five manual ones")
	assert.Equal(t, 3, c.Status().Handoffs)
}
