package session

import (
	"context"

	"github.com/contextkit/compact"
)

// CompressHere is compact.CompressHere on the live history: it keeps the
// last keep exchanges verbatim and summarises the rest. It runs as
// Compress does (one compaction at a time, under the lease, committed to
// the store, messages appended meanwhile kept after it), and is forced.
func (s *Session) CompressHere(ctx context.Context, keep int, opts ...compact.CompressOption) (*compact.Result, error) {
	return s.compress(ctx, func(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
		return compact.CompressHere(ctx, s.engine, msgs, keep, opts...)
	}, opts)
}

// CompressBefore is compact.CompressBefore on the live history: it keeps
// the messages from index on verbatim and summarises those before. index
// counts in the live history as the compaction reads it, which is what
// Messages returns unless another process appends or compacts meanwhile.
// Otherwise it runs as Compress does, and is forced.
func (s *Session) CompressBefore(ctx context.Context, index int, opts ...compact.CompressOption) (*compact.Result, error) {
	return s.compress(ctx, func(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
		return compact.CompressBefore(ctx, s.engine, msgs, index, opts...)
	}, opts)
}

// CompressFrom is compact.CompressFrom on the live history: it keeps the
// messages before index verbatim and summarises the rest, the latest user
// message kept after the summary. index counts as in CompressBefore;
// otherwise it runs as Compress does, and is forced.
func (s *Session) CompressFrom(ctx context.Context, index int, opts ...compact.CompressOption) (*compact.Result, error) {
	return s.compress(ctx, func(ctx context.Context, msgs []compact.Message, opts ...compact.CompressOption) (*compact.Result, error) {
		return compact.CompressFrom(ctx, s.engine, msgs, index, opts...)
	}, opts)
}
