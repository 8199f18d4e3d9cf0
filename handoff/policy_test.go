package handoff

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyDefaults(t *testing.T) {
	p, adjusted := Policy{}.Resolve()
	assert.Empty(t, adjusted)
	assert.False(t, p.Enabled, "off by default")
	assert.Equal(t, PromptUser, p.Mode)
	assert.Equal(t, 2, p.AfterCompactions)
	assert.Equal(t, 1, p.MaxPerSession)
	assert.Equal(t, 32<<10, p.MaxBytes)
	assert.Equal(t, defaultMessages, p.MaxMessages)
	assert.Equal(t, defaultMessageBytes, p.MessageBytes)
	assert.Equal(t, "", p.Dir)

	odd, adjusted := Policy{AfterCompactions: -1, MaxPerSession: -3, MaxBytes: 10, MessageBytes: 1}.Resolve()
	assert.Equal(t, 2, odd.AfterCompactions)
	assert.Equal(t, 1, odd.MaxPerSession)
	assert.Equal(t, minBytes, odd.MaxBytes)
	assert.Equal(t, minMessageBytes, odd.MessageBytes)
	assert.Equal(t, []string{"MaxBytes(10): below 8192, 8192 kept", "MessageBytes(1): below 256, 256 kept"}, adjusted)
}

func TestModeText(t *testing.T) {
	for _, m := range []Mode{PromptUser, FreshSession} {
		b, err := json.Marshal(m)
		require.NoError(t, err)
		var back Mode
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, m, back)
	}
	var m Mode
	require.NoError(t, m.UnmarshalText([]byte(" Fresh_Session ")))
	assert.Equal(t, FreshSession, m)
	assert.Error(t, m.UnmarshalText([]byte("sometimes")))
	_, err := Mode(7).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "Mode(7)", Mode(7).String())
}

func TestContinuationKeepsEverySystemMessage(t *testing.T) {
	// A Compressor appends its note as a part of its own to a parts list,
	// and after a blank line to a string.
	noted := msgtest.Parts(msg.RoleSystem, "You are an agent.", "Be brief.", msg.CompactionNote)
	in := []Message{noted, {Role: msg.RoleDeveloper, Content: "dev rules"}, msgtest.User("hi")}
	cont, err := Continuation(in, msg.CompactionNote, "packet")
	require.NoError(t, err)
	assert.Equal(t, []Message{msgtest.Parts(msg.RoleSystem, "You are an agent.", "Be brief."),
		{Role: msg.RoleDeveloper, Content: "dev rules"}, msgtest.User("packet")}, cont)

	in = []Message{msgtest.Sys("You are an agent." + msg.CompactionNoteSep + msg.CompactionNote), msgtest.User("hi")}
	cont, err = Continuation(in, msg.CompactionNote, "packet")
	require.NoError(t, err)
	assert.Equal(t, []Message{msgtest.Sys("You are an agent."), msgtest.User("packet")}, cont)

	cont, err = Continuation([]Message{msgtest.User("no system prompt")}, msg.CompactionNote, "packet")
	require.NoError(t, err)
	assert.Equal(t, []Message{msgtest.User("packet")}, cont)
}

func TestParseCommand(t *testing.T) {
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
		note, ok := ParseCommand(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.note, note, tt.in)
	}
}

// A policy loads from a configuration file; Start is the host's to set.
func TestPolicyFromJSON(t *testing.T) {
	var p Policy
	require.NoError(t, json.Unmarshal([]byte(`{"Enabled": true, "Mode": "fresh-session", "AfterCompactions": 3, "Root": "/var/lib/agent"}`), &p))
	assert.Equal(t, Policy{Enabled: true, Mode: FreshSession, AfterCompactions: 3, Root: "/var/lib/agent"}, p)
	p.Start = func(context.Context, Report) (string, error) { return "", nil }
	_, err := json.Marshal(p)
	assert.NoError(t, err)
}
