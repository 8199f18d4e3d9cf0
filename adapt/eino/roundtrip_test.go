package eino

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEveryKindRoundTripsUnchanged(t *testing.T) {
	msgs := decode(t, everyKindJSON)
	requireIdentical(t, msgs, roundTrip(t, msgs))
	require.NoError(t, Validate(msgs), "the fixture is a valid request")
}

func TestEveryTranscriptRoundTripsUnchanged(t *testing.T) {
	all := allTranscripts(t)
	for _, name := range sortedNames(all) {
		t.Run(name, func(t *testing.T) {
			msgs := fromTranscript(t, all[name])
			requireIdentical(t, msgs, roundTrip(t, msgs))

			// The JSON an agent stores and reads back converts the same way.
			again := decode(t, encode(t, msgs))
			requireIdentical(t, again, roundTrip(t, again))
		})
	}
}
