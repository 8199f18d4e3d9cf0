package bpe

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// The encodings this package embeds, by the names tiktoken gives them.
const (
	O200KBase  = "o200k_base"
	CL100KBase = "cl100k_base"
)

// The embedded encodings, each built once per process on first use and
// immutable afterwards.
var (
	o200k = sync.OnceValues(func() (*Encoding, error) {
		return build(O200KBase, o200kRanks, nextO200k)
	})
	cl100k = sync.OnceValues(func() (*Encoding, error) {
		return build(CL100KBase, cl100kRanks, nextCL100k)
	})
)

// Load returns the named encoding; ok is false for a name this package
// does not embed. err reports an embedded table that does not read (a
// corrupt checkout).
func Load(name string) (enc *Encoding, ok bool, err error) {
	switch name {
	case O200KBase:
		enc, err = o200k()
	case CL100KBase:
		enc, err = cl100k()
	default:
		return nil, false, nil
	}
	return enc, true, err
}

// build reads an embedded rank table.
func build(name, table string, next func(string, int) int) (*Encoding, error) {
	ranks, err := newRankTable(table)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Encoding{name: name, next: next, ranks: ranks}, nil
}

// Name returns the encoding's name.
func (e *Encoding) Name() string { return e.name }

// Split returns the pieces the encoding's scanner splits s into, with
// invalid UTF-8 read as U+FFFD, as Count reads it.
func (e *Encoding) Split(s string) []string {
	if !utf8.ValidString(s) {
		s = replaceInvalid(s)
	}
	var pieces []string
	for i := 0; i < len(s); {
		j := e.next(s, i)
		pieces = append(pieces, s[i:j])
		i = j
	}
	return pieces
}

// Tokens returns the encoding's tokens in rank order.
func (e *Encoding) Tokens() []string {
	tokens := make([]string, len(e.ranks.offsets)-1)
	for r := range tokens {
		tokens[r] = e.ranks.token(uint32(r))
	}
	return tokens
}

// Build builds the named encoding anew from its embedded table, shared
// with nothing, as Load does once per process: for a test that must see
// the build itself, and for the benchmark of the first counter's wait.
func Build(name string) (*Encoding, error) {
	switch name {
	case O200KBase:
		return build(O200KBase, o200kRanks, nextO200k)
	case CL100KBase:
		return build(CL100KBase, cl100kRanks, nextCL100k)
	}
	return nil, fmt.Errorf("bpe: no encoding %q", name)
}
