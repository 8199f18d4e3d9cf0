package msg_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact/internal/msgtest"
)

// FuzzValidate: Validate never panics, agrees with Problems, and its error
// always names a message inside the slice.
func FuzzValidate(f *testing.F) {
	msgtest.Seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), msgtest.MaxFuzzMessages)]
		msgs := msgtest.Random(data)
		before := msg.Clone(msgs)
		err := msg.Validate(msgs)
		ps := msg.Problems(msgs)
		require.Equal(t, err == nil, len(ps) == 0, "Validate = %v but Problems has %d entries", err, len(ps))
		for _, p := range ps {
			require.False(t, p.Index < 0 || p.Index >= len(msgs), "problem names message %d of %d", p.Index, len(msgs))
		}
		require.True(t, reflect.DeepEqual(before, msgs), "Validate modified its input")
	})
}

// FuzzRepairToolPairs: the repaired history has no pairing or empty-turn
// problem left, keeps a pending final group, reports a change for every
// message it dropped, and leaves its input alone.
func FuzzRepairToolPairs(f *testing.F) {
	msgtest.Seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), msgtest.MaxFuzzMessages)]
		msgs := msgtest.Random(data)
		before := msg.Clone(msgs)
		got, repairs := msg.RepairToolPairs(msgs)
		require.True(t, reflect.DeepEqual(before, msgs), "RepairToolPairs modified its input")
		for _, p := range msg.Problems(got) {
			require.False(t, p.Rule != msg.RuleUnknownRole && p.Rule != msg.RuleBothContents, "repaired history still breaks %v: %v\nroles in:  %s\nroles out: %s", p.Rule, p, msgtest.Roles(msgs), msgtest.Roles(got))
		}
		dropped, merged := 0, 0
		for _, r := range repairs {
			switch r.Kind {
			case msg.RepairDroppedResult:
				dropped++
			case msg.RepairMergedSeam:
				merged++
			}
		}
		require.Equal(t, len(msgs)-dropped-merged, len(got), "%d messages in, but %d drops and %d merges reported", len(msgs), dropped, merged)
		require.False(t, len(repairs) == 0 && !reflect.DeepEqual(msgs, got), "history changed without a reported repair")
		// Every user and assistant text survives (merges join, never drop).
		all := msgtest.JoinedText(got)
		for _, m := range msgs {
			require.False(t, (m.Role == msg.RoleUser || m.Role == msg.RoleAssistant) && !strings.Contains(all, msg.Text(m)), "text %q of a %s turn was lost", msg.Text(m), m.Role)
		}
		again, more := msg.RepairToolPairs(got)
		require.Empty(t, more, "repair is not idempotent")
		require.True(t, reflect.DeepEqual(again, got), "repair is not idempotent")
	})
}

// FuzzJoin: joining any split of a history never loses text, never creates
// a user-user or assistant-assistant seam at a join point, and leaves the
// parts alone.
func FuzzJoin(f *testing.F) {
	msgtest.Seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), msgtest.MaxFuzzMessages)]
		msgs := msgtest.Random(data)
		// Split at every point where the byte says so.
		var parts [][]msg.Message
		start := 0
		for i := range msgs {
			if data[i%len(data)]&1 == 1 {
				parts = append(parts, msgs[start:i+1])
				start = i + 1
			}
		}
		parts = append(parts, msgs[start:])
		before := msg.Clone(msgs)
		got := msg.Join(parts...)
		require.True(t, reflect.DeepEqual(before, msgs), "Join modified its input")
		all := msgtest.JoinedText(got)
		for _, m := range msgs {
			require.True(t, strings.Contains(all, msg.Text(m)), "text %q lost at a seam", msg.Text(m))
		}
		// A seam inside a part may clash (the input had it); a seam at a join
		// point may not. Count msg.Clashes: the output has no more than the parts
		// had inside them.
		inside := 0
		for _, p := range parts {
			inside += msgtest.Clashes(p)
		}
		c := msgtest.Clashes(got)
		require.LessOrEqual(t, c, inside, "join created clashing seams\nroles: %s", msgtest.Roles(got))
		require.True(t, msgtest.Equal(msg.Join(msgs), msgs), "joining one part must return it unchanged")
	})
}
