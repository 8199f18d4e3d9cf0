package extractive

import "github.com/contextkit/compact/internal/msgtest"

// Builders and transcripts shared with the other packages' tests (see
// msgtest).
var (
	user              = msgtest.User
	asst              = msgtest.Asst
	result            = msgtest.Result
	randomHistory     = msgtest.Random
	sharedTranscripts = msgtest.Shared
	allTranscripts    = msgtest.All
	sortedNames       = msgtest.Names
	equalHistory      = msgtest.Equal
)
