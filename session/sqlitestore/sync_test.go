package sqlitestore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 32.6: WithSynchronousFull takes a bool like every other toggle:
// true is synchronous=FULL on every connection, false (and the default)
// NORMAL.
func TestWithSynchronousFull(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []Option
		want int // SQLite's PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{"default", nil, 1},
		{"false", []Option{WithSynchronousFull(false)}, 1},
		{"true", []Option{WithSynchronousFull(true)}, 2},
		{"true then false", []Option{WithSynchronousFull(true), WithSynchronousFull(false)}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := openInternal(t, tt.opts...)
			var w, r int
			require.NoError(t, st.w.QueryRow("PRAGMA synchronous").Scan(&w))
			require.NoError(t, st.r.QueryRow("PRAGMA synchronous").Scan(&r))
			assert.Equal(t, tt.want, w, "the write connection")
			assert.Equal(t, tt.want, r, "a read connection")
		})
	}
}
