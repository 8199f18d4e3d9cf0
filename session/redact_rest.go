package session

import (
	"context"

	"github.com/contextkit/compact/session/store"
)

// WithRedactAtRest sets whether the Session rewrites, in its store, the
// records each compaction folds, through package redact (store.RedactMessage),
// as soon as the compaction is committed: the store then keeps no
// credential the model no longer reads verbatim (its old bytes stay in
// the store's free space until it is vacuumed; see the package doc), and
// recall searches and expands the redacted text. Records in the live
// history stay verbatim: the model needs them. The store must be a
// store.Rewriter, or Open fails with an error wrapping errors.ErrUnsupported. A
// redaction that fails (the store, or ctx) is logged and leaves the
// compaction committed; store.RedactFolded catches up. Off by default: the store
// keeps every message verbatim until the session is deleted or its records
// expire. Without a store nothing is kept at rest and the option does
// nothing.
func WithRedactAtRest(on bool) Option {
	return func(c *config) { c.redactAtRest = on }
}

// redactCommitted redacts the records compaction n's summaries fold that
// no compaction before it folded (all of its range when the earlier one's
// is unknown), after the commit: see WithRedactAtRest.
func (s *Session) redactCommitted(ctx context.Context, prev foldedOf, n int, folded seqRange) {
	if !s.redactAtRest || folded.From == 0 {
		return
	}
	from := folded.From
	if prev.n == n-1 && prev.r.To >= from {
		from = prev.r.To + 1
	}
	if from > folded.To {
		return
	}
	changed, err := store.RedactRange(ctx, s.store, s.id, from, folded.To)
	if err != nil {
		s.log.Warn("redacting the records a compaction folded failed; store.RedactFolded catches up", "compaction", n, errAttr(err))
		return
	}
	s.log.Debug("redacted folded records", "compaction", n, "from", from, "through", folded.To, "changed", changed)
}
