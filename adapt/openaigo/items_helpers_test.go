package openaigo

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
)

func encodeItems(t testing.TB, items []Item) string {
	t.Helper()
	data, err := json.Marshal(items)
	require.NoError(t, err)
	return string(data)
}

// requireSameItems fails unless got is want: the same Go values and the
// same bytes on the wire.
func requireSameItems(t testing.TB, want, got []Item) {
	t.Helper()
	require.Equal(t, encodeItems(t, want), encodeItems(t, got), "the encoded histories differ")
	require.True(t, reflect.DeepEqual(want, got), "the histories encode alike but are different values")
}

// roundTripItems converts items and restores the conversion's own
// messages.
func roundTripItems(t testing.TB, items []Item) []Item {
	t.Helper()
	conv, err := ConvertItems(items)
	require.NoError(t, err)
	out, err := conv.Restore(conv.Messages)
	require.NoError(t, err)
	return out
}

// itemViews converts items and returns the messages.
func itemViews(t testing.TB, items []Item) []compact.Message {
	t.Helper()
	conv, err := ConvertItems(items)
	require.NoError(t, err)
	return conv.Messages
}

// decodeItemsT is DecodeItems that fails the test on error.
func decodeItemsT(t testing.TB, data string) []Item {
	t.Helper()
	items, err := DecodeItems([]byte(data))
	require.NoError(t, err)
	return items
}
