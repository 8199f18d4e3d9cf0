package msgtest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTranscriptsReadsEachFileByName(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "chat.json")
	if err := os.WriteFile(file, []byte(`[{"role":"user","content":"hi"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	got := Transcripts(t, []string{file})
	if len(got) != 1 || len(got["chat.json"]) != 1 || got["chat.json"][0].Content != "hi" {
		t.Fatalf("got %v", got)
	}
	if names := Names(map[string][]Message{"b": nil, "a": nil}); names[0] != "a" || names[1] != "b" {
		t.Fatalf("names out of order: %v", names)
	}
}

func TestHalfAnsweredIsTheLastGroupWithSomeResults(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want bool
	}{
		{"no calls", []Message{User("q")}, false},
		{"all pending", []Message{User("q"), Call("", "a", "f", "b", "g")}, false},
		{"one of two answered", []Message{User("q"), Call("", "a", "f", "b", "g"), Result("a", "1")}, true},
		{"all answered", []Message{User("q"), Call("", "a", "f", "b", "g"), Result("a", "1"), Result("b", "2")}, false},
		{"a turn after the group", []Message{Call("", "a", "f", "b", "g"), Result("a", "1"), User("more")}, false},
	}
	for _, tt := range tests {
		if got := HalfAnswered(tt.msgs); got != tt.want {
			t.Errorf("%s: HalfAnswered = %v, want %v", tt.name, got, tt.want)
		}
	}
}
