package msg

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A TextMemo derives a text once per message and extra, tells apart
// messages whose text moved between fields, and stays within two
// generations of its bound.
func TestTextMemo(t *testing.T) {
	tm := NewTextMemo(100)
	calls := 0
	get := func(m Message, extra string) string {
		return tm.Get(m, extra, func() string { calls++; return m.Role + "|" + m.Content + "|" + m.Name + "|" + extra })
	}
	a := Message{Role: "user", Content: "ab"}
	b := Message{Role: "user", Content: "a", Name: "b"}
	assert.Equal(t, "user|ab||", get(a, ""))
	assert.Equal(t, "user|ab||", get(a, ""))
	assert.Equal(t, 1, calls, "derived once")
	assert.Equal(t, "user|a|b|", get(b, ""), "text moved to another field")
	assert.Equal(t, "user|ab||x", get(a, "x"), "another extra")
	assert.Equal(t, 3, calls)
	for i := range 100 {
		get(Message{Role: "user", Content: strconv.Itoa(i)}, "")
	}
	held := tm.curBytes
	for _, s := range tm.old {
		held += len(s)
	}
	assert.LessOrEqual(t, held, 2*100+20, "two generations of 100 bytes")
	var none *TextMemo
	assert.Equal(t, "fresh", none.Get(a, "", func() string { return "fresh" }), "a nil memo")
}
