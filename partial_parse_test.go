package compact

import (
	"testing"

	"github.com/contextkit/compact/internal/cmdargs"
	"github.com/contextkit/compact/internal/msgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCompressArgs(t *testing.T) {
	full := func(focus string) CompressCommand { return CompressCommand{Focus: focus} }
	keep := func(n int, focus string) CompressCommand {
		return CompressCommand{Partial: true, Keep: n, Focus: focus}
	}
	tests := []struct {
		args string
		want CompressCommand
	}{
		// Full compactions.
		{"", full("")},
		{"   \t\n ", full("")},
		{"auth flow", full("auth flow")},
		{"  the   auth\tflow ", full("the auth flow")},
		{"fix the bug here", full("fix the bug here")},
		{"hereafter", full("hereafter")},
		{"here.", full("here.")},
		{"up to", full("up to")},
		{"up to there 3", full("up to there 3")},
		{"--keeps 3", full("--keeps 3")},
		{"-kk 3", full("-kk 3")},

		// here [N]
		{"here", keep(2, "")},
		{"HERE", keep(2, "")},
		{"  Here  ", keep(2, "")},
		{"here 3", keep(3, "")},
		{"here 1", keep(1, "")},
		{"here 100", keep(100, "")},
		{"here +4", keep(4, "")},
		{"here 007", keep(7, "")},

		// Clamping.
		{"here 0", keep(1, "")},
		{"here -5", keep(1, "")},
		{"here 101", keep(100, "")},
		{"here 500", keep(100, "")},
		{"here 99999999999999999999999", keep(100, "")},
		{"here -99999999999999999999999", keep(1, "")},

		// Not a number: default N, and the words are a focus.
		{"here abc", keep(2, "abc")},
		{"here 3x", keep(2, "3x")},
		{"here 1.5", keep(2, "1.5")},
		{"here auth flow", keep(2, "auth flow")},
		{"here 3 auth flow", keep(3, "auth flow")},
		{"here 3 4", keep(3, "4")},

		// up to here [N]
		{"up to here", keep(2, "")},
		{"Up To HERE 5", keep(5, "")},
		{"up to here 0", keep(1, "")},
		{"up to here the schema", keep(2, "the schema")},

		// Flags.
		{"--keep 3", keep(3, "")},
		{"--KEEP 3", keep(3, "")},
		{"--keep=3", keep(3, "")},
		{"--keep=300", keep(100, "")},
		{"-k 4", keep(4, "")},
		{"-K 4", keep(4, "")},
		{"-k=4", keep(4, "")},
		{"-k 0", keep(1, "")},
		{"--keep", keep(2, "")},
		{"-k", keep(2, "")},
		{"--keep=", keep(2, "")},
		{"--keep=x", keep(2, "")},
		{"--keep=x auth", keep(2, "auth")},
		{"--keep abc", keep(2, "abc")},
		{"--keep 3 the auth module", keep(3, "the auth module")},
		{"--keep=3 the auth module", keep(3, "the auth module")},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			assert.Equal(t, tt.want, ParseCompressArgs(tt.args))
		})
	}
}

// FuzzParseCompressArgs: any text parses, a partial command keeps a number
// of exchanges in range, and a full one keeps none.
func FuzzParseCompressArgs(f *testing.F) {
	for _, s := range []string{"", "here", "here 3 x", "up to here 9", "--keep=4", "-k", "focus"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		cmd := ParseCompressArgs(args)
		require.False(t, cmd.Partial && (cmd.Keep < 1 || cmd.Keep > cmdargs.MaxKeep), "%s: keep %d out of range", msgtest.Excerpt(args), cmd.Keep)
		require.False(t, !cmd.Partial && cmd.Keep != 0, "%s: a full compaction keeps %d", msgtest.Excerpt(args), cmd.Keep)
		require.LessOrEqual(t, len(cmd.Focus), len(args), "%s: focus %s is longer than the input", msgtest.Excerpt(args), msgtest.Excerpt(cmd.Focus))
	})
}
