package openaicompat

import (
	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msgtest"
)

var (
	user         = msgtest.User
	asst         = msgtest.Asst
	call         = msgtest.Call
	result       = msgtest.Result
	equalHistory = msgtest.Equal
)

// tcall is an assistant turn making one tool call with the given arguments.
func tcall(id, name, args string) compact.Message {
	m := call("", id, name)
	m.ToolCalls[0].Function.Arguments = args
	return m
}
