package extractive

import "github.com/contextkit/compact/internal/msgtest"

// Builders and transcripts shared with the other packages' tests (see
// msgtest).
var (
	sys               = msgtest.Sys
	user              = msgtest.User
	asst              = msgtest.Asst
	call              = msgtest.Call
	result            = msgtest.Result
	partsMsg          = msgtest.Parts
	randomHistory     = msgtest.Random
	sharedTranscripts = msgtest.Shared
	allTranscripts    = msgtest.All
	sortedNames       = msgtest.Names
	chainedHistory    = msgtest.Chained
	equalHistory      = msgtest.Equal
)

// maxFuzzMessages bounds the histories fuzz targets build (see msgtest).
const maxFuzzMessages = msgtest.MaxFuzzMessages
