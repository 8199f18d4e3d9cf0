package english

import (
	"fmt"
	"testing"
)

func TestNoun(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{1, "message", "message"},
		{0, "message", "messages"},
		{2, "message", "messages"},
		{-1, "byte", "bytes"},
		{1, "earlier message", "earlier message"},
		{4, "tool result", "tool results"},
		{3, "summary", "summaries"},
		{2, "day", "days"},
		{2, "match", "matches"},
		{2, "process", "processes"},
		{2, "box", "boxes"},
		{2, "time", "times"},
		{2, "y", "ys"},
		{2, "", ""},
	} {
		if got := Noun(tc.n, tc.noun); got != tc.want {
			t.Errorf("Noun(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

func ExampleNoun() {
	for _, n := range []int{1, 3} {
		fmt.Printf("%d %s, %d %s\n", n, Noun(n, "summary"), n, Noun(n, "tool result"))
	}
	// Output:
	// 1 summary, 1 tool result
	// 3 summaries, 3 tool results
}
