package openaicompat

import "github.com/contextkit/compact/internal/msgtest"

var (
	user         = msgtest.User
	asst         = msgtest.Asst
	call         = msgtest.Call
	result       = msgtest.Result
	equalHistory = msgtest.Equal
)
