package handoff

import "github.com/contextkit/compact/internal/msgtest"

// Builders shared with the other packages' tests (see msgtest).
var (
	sys           = msgtest.Sys
	user          = msgtest.User
	asst          = msgtest.Asst
	call          = msgtest.Call
	result        = msgtest.Result
	partsMsg      = msgtest.Parts
	randomHistory = msgtest.Random
)

// maxFuzzMessages bounds the histories fuzz targets build (see msgtest).
const maxFuzzMessages = msgtest.MaxFuzzMessages
