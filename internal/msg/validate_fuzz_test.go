package msg_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/contextkit/compact/internal/msg"

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
		if (err == nil) != (len(ps) == 0) {
			t.Fatalf("Validate = %v but Problems has %d entries", err, len(ps))
		}
		for _, p := range ps {
			if p.Index < 0 || p.Index >= len(msgs) {
				t.Fatalf("problem names message %d of %d", p.Index, len(msgs))
			}
		}
		if !reflect.DeepEqual(before, msgs) {
			t.Fatal("Validate modified its input")
		}
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
		if !reflect.DeepEqual(before, msgs) {
			t.Fatal("RepairToolPairs modified its input")
		}
		for _, p := range msg.Problems(got) {
			if p.Rule != msg.RuleUnknownRole && p.Rule != msg.RuleBothContents {
				t.Fatalf("repaired history still breaks %v: %v\nroles in:  %s\nroles out: %s", p.Rule, p, msgtest.Roles(msgs), msgtest.Roles(got))
			}
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
		if len(got) != len(msgs)-dropped-merged {
			t.Fatalf("%d messages in, %d out, but %d drops and %d merges reported", len(msgs), len(got), dropped, merged)
		}
		if len(repairs) == 0 && !reflect.DeepEqual(msgs, got) {
			t.Fatal("history changed without a reported repair")
		}
		// Every user and assistant text survives (merges join, never drop).
		all := msgtest.JoinedText(got)
		for _, m := range msgs {
			if (m.Role == msg.RoleUser || m.Role == msg.RoleAssistant) && !strings.Contains(all, msg.Text(m)) {
				t.Fatalf("text %q of a %s turn was lost", msg.Text(m), m.Role)
			}
		}
		again, more := msg.RepairToolPairs(got)
		if len(more) != 0 || !reflect.DeepEqual(again, got) {
			t.Fatalf("repair is not idempotent: %v", more)
		}
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
		if !reflect.DeepEqual(before, msgs) {
			t.Fatal("Join modified its input")
		}
		all := msgtest.JoinedText(got)
		for _, m := range msgs {
			if !strings.Contains(all, msg.Text(m)) {
				t.Fatalf("text %q lost at a seam", msg.Text(m))
			}
		}
		// A seam inside a part may clash (the input had it); a seam at a join
		// point may not. Count msg.Clashes: the output has no more than the parts
		// had inside them.
		inside := 0
		for _, p := range parts {
			inside += msgtest.Clashes(p)
		}
		if c := msgtest.Clashes(got); c > inside {
			t.Fatalf("join created %d clashing seams (parts had %d)\nroles: %s", c-inside, inside, msgtest.Roles(got))
		}
		if !msgtest.Equal(msg.Join(msgs), msgs) {
			t.Fatal("joining one part must return it unchanged")
		}
	})
}
