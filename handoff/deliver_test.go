package handoff

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeliver(t *testing.T) {
	history := []Message{
		{Role: "system", Content: "You are a coding agent." + msg.CompactionNoteSep + "NOTE"},
		{Role: "user", Content: "Fix the importer."},
	}
	in := Input{SessionID: "s1", Messages: history, Summary: "The importer skips blank lines."}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name      string
		mode      Mode
		start     func(context.Context, Report) (string, error)
		wantErr   error
		wantFiles []string
		wantID    string
		wantCont  bool
	}{
		{name: "prompt user", mode: PromptUser, wantFiles: []string{"h/", "h/p.md"}},
		{name: "fresh session without start", mode: FreshSession, wantFiles: []string{"h/", "h/p.md"}, wantCont: true},
		{name: "fresh session started", mode: FreshSession, wantFiles: []string{"h/", "h/p.md"}, wantCont: true,
			start: func(_ context.Context, r Report) (string, error) {
				r.Continuation[0].Content = "changed by the host" // a copy: the report keeps its own
				return "s2", nil
			}, wantID: "s2"},
		{name: "start fails: no packet left", mode: FreshSession, wantErr: boom, wantFiles: []string{"h/"},
			start: func(context.Context, Report) (string, error) { return "", boom }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := Policy{Mode: tc.mode, Root: root, Dir: "h", Start: tc.start}
			r, err := Deliver(context.Background(), p, in, history, "NOTE", "p.md")
			assert.Equal(t, tc.wantFiles, msgtest.Tree(t, root))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Nil(t, r)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.mode, r.Mode)
			assert.Equal(t, "s1", r.SessionID)
			assert.Equal(t, tc.wantID, r.ContinuationID)
			assert.Equal(t, Build(in), r.Packet)
			assert.NotEmpty(t, r.Path)
			if !tc.wantCont {
				assert.Nil(t, r.Continuation)
				return
			}
			require.Len(t, r.Continuation, 2)
			assert.Equal(t, "You are a coding agent.", r.Continuation[0].Content, "the note is gone")
			assert.Equal(t, r.Packet, r.Continuation[1].Content)
			assert.Equal(t, "You are a coding agent."+msg.CompactionNoteSep+"NOTE", history[0].Content, "the caller's history is untouched")
		})
	}
}

func TestDeliverRefusesAPathOutsideItsRoot(t *testing.T) {
	root := t.TempDir()
	_, err := Deliver(context.Background(), Policy{Mode: PromptUser, Root: root, Dir: "../out"}, Input{}, nil, "", "p.md")
	require.Error(t, err)
	assert.Empty(t, msgtest.Tree(t, root))
}

// The policy bounds the packet Deliver writes: its MaxBytes, MaxMessages
// and MessageBytes replace whatever the Input carries, so a caller cannot
// write a packet larger than the policy allows.
func TestDeliverBoundsThePacketByThePolicy(t *testing.T) {
	var history []Message
	for i := range 20 {
		history = append(history, Message{Role: "user", Content: strings.Repeat("question ", 100) + strconv.Itoa(i)},
			Message{Role: "assistant", Content: strings.Repeat("answer ", 100) + strconv.Itoa(i)})
	}
	p := Policy{Mode: PromptUser, Root: t.TempDir(), MaxMessages: 2, MessageBytes: 300}
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"input without bounds", Input{SessionID: "s1", Messages: history}},
		{"input with larger bounds", Input{SessionID: "s1", Messages: history, MaxMessages: 30, MessageBytes: 4 << 10, MaxBytes: 64 << 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Deliver(context.Background(), p, tc.in, nil, "", tc.name+".md")
			require.NoError(t, err)
			bounded := tc.in
			bounded.MaxBytes, bounded.MaxMessages, bounded.MessageBytes = p.MaxBytes, p.MaxMessages, p.MessageBytes
			assert.Equal(t, Build(bounded), r.Packet)
			assert.NotEqual(t, Build(tc.in), r.Packet, "the input's own bounds would quote more")
			assert.Equal(t, "s1", r.SessionID, "the report names the input's session")
			assert.Equal(t, 1, strings.Count(r.Packet, "answer 19"), "the latest message is quoted")
			assert.NotContains(t, r.Packet, "answer 17", "only the policy's two latest messages are quoted")
		})
	}
}
