package compact

import "github.com/contextkit/compact/internal/cmdargs"

// CompressCommand is what the text after "/compress" asks for: a full
// compaction (optionally weighted toward a focus topic), or a partial one
// that keeps the last Keep exchanges verbatim and summarises the rest.
type CompressCommand struct {
	// Partial is set for "here" and its synonyms.
	Partial bool
	// Keep is how many recent exchanges a partial compaction keeps, in
	// [1, 100]; zero for a full compaction.
	Keep int
	// Focus is a topic the summary should weight (see WithFocus), or "".
	Focus string
}

// ParseCompressArgs reads the text a person typed after "/compress".
// Keywords are case-insensitive; words are separated by any white space.
//
//	""                         full compaction
//	"here [N]"                 partial: keep the last N exchanges (default 2)
//	"up to here [N]"           the same
//	"--keep N", "--keep=N"     the same
//	"-k N", "-k=N"             the same
//	anything else              full compaction, the text is its focus topic
//
// N is clamped to [1, 100], so "here 0" keeps one exchange and
// "here 500" keeps a hundred. A word where N would be that is not a number
// leaves N at its default of 2 and, with the words after it, becomes
// the focus of the partial compaction: "here auth flow" keeps two exchanges
// and weights the summary toward "auth flow", and "here 3 auth flow" keeps
// three. A flag without a value ("--keep", "--keep=") or with a malformed
// one ("--keep=x") keeps the default. Partial forms are recognised only at
// the start; "fix the bug here" is a focus topic.
func ParseCompressArgs(args string) CompressCommand {
	partial, keep, focus := cmdargs.Parse(args)
	return CompressCommand{Partial: partial, Keep: keep, Focus: focus}
}
