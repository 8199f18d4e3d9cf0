package compact

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func seamSeeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 4, 12, 3, 1})        // system, user, call, results, assistant, user
	f.Add([]byte{1, 4, 5, 5, 1, 68, 5})     // answered twice, then a reused id
	f.Add([]byte{1, 4, 1, 5, 3, 9, 10, 11}) // result after a user turn, empty turn, no id, unknown role
	f.Add([]byte{7, 8, 7, 1, 132, 12, 4})   // parts and images, two-call group, pending end
}

// FuzzValidate: Validate never panics, agrees with Problems, and its error
// always names a message inside the slice.
func FuzzValidate(f *testing.F) {
	seamSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), maxFuzzMessages)]
		msgs := randomHistory(data)
		before := Clone(msgs)
		err := Validate(msgs)
		ps := Problems(msgs)
		if (err == nil) != (len(ps) == 0) {
			t.Fatalf("Validate = %v but Problems has %d entries", err, len(ps))
		}
		for _, p := range ps {
			if p.Index < 0 || p.Index >= len(msgs) {
				t.Fatalf("problem names message %d of %d", p.Index, len(msgs))
			}
			if !errors.Is(p, ErrInvalidHistory) {
				t.Fatal("a problem must unwrap to ErrInvalidHistory")
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
	seamSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), maxFuzzMessages)]
		msgs := randomHistory(data)
		before := Clone(msgs)
		got, repairs := RepairToolPairs(msgs)
		if !reflect.DeepEqual(before, msgs) {
			t.Fatal("RepairToolPairs modified its input")
		}
		for _, p := range Problems(got) {
			if p.Rule != ruleUnknownRole && p.Rule != ruleBothContents {
				t.Fatalf("repaired history still breaks %v: %v\nroles in:  %s\nroles out: %s", p.Rule, p, roles(msgs), roles(got))
			}
		}
		dropped, merged := 0, 0
		for _, r := range repairs {
			switch r.Kind {
			case repairDroppedResult:
				dropped++
			case repairMergedSeam:
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
		all := joinedText(got)
		for _, m := range msgs {
			if (m.Role == RoleUser || m.Role == RoleAssistant) && !strings.Contains(all, Text(m)) {
				t.Fatalf("text %q of a %s turn was lost", Text(m), m.Role)
			}
		}
		again, more := RepairToolPairs(got)
		if len(more) != 0 || !reflect.DeepEqual(again, got) {
			t.Fatalf("repair is not idempotent: %v", more)
		}
	})
}

// FuzzJoin: joining any split of a history never loses text, never creates
// a user-user or assistant-assistant seam at a join point, and leaves the
// parts alone.
func FuzzJoin(f *testing.F) {
	seamSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		data = data[:min(len(data), maxFuzzMessages)]
		msgs := randomHistory(data)
		// Split at every point where the byte says so.
		var parts [][]Message
		start := 0
		for i := range msgs {
			if data[i%len(data)]&1 == 1 {
				parts = append(parts, msgs[start:i+1])
				start = i + 1
			}
		}
		parts = append(parts, msgs[start:])
		before := Clone(msgs)
		got := Join(parts...)
		if !reflect.DeepEqual(before, msgs) {
			t.Fatal("Join modified its input")
		}
		all := joinedText(got)
		for _, m := range msgs {
			if !strings.Contains(all, Text(m)) {
				t.Fatalf("text %q lost at a seam", Text(m))
			}
		}
		// A seam inside a part may clash (the input had it); a seam at a join
		// point may not. Count clashes: the output has no more than the parts
		// had inside them.
		inside := 0
		for _, p := range parts {
			inside += countClashes(p)
		}
		if c := countClashes(got); c > inside {
			t.Fatalf("join created %d clashing seams (parts had %d)\nroles: %s", c-inside, inside, roles(got))
		}
		if !equalHistory(Join(msgs), msgs) {
			t.Fatal("joining one part must return it unchanged")
		}
	})
}

func countClashes(msgs []Message) int {
	n := 0
	for i := 1; i < len(msgs); i++ {
		if clashes(msgs[i-1], msgs[i]) {
			n++
		}
	}
	return n
}

func joinedText(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(Text(m))
		b.WriteString("\x00")
	}
	return b.String()
}
