package session

import (
	"context"
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/msg"
)

// RecordCompaction commits res, a compaction of the live history that the session's
// engine did not run: a provider's own, such as the one Anthropic does
// inside a request (what the anthropic adapter's NativeEngine.Record
// returns) or OpenAI's /responses/compact. It is committed as Compress
// commits its engine's: one compaction at a time, under the session's
// lease with a Leaser store, the log keeping every message (so the recall
// tools find and expand every message the provider folded, exactly as
// after a compaction of the session's own), the folded range recorded in
// the Compaction, a background compaction running cancelled (the
// provider's supersedes it), and the same errors, ErrStale included.
//
// res must be a compaction of the live history as it stands: the provider
// read its first res.MessagesBefore messages (res's input indexes, such as
// SummarizedFrom and the Account's, index them), and the messages appended
// after those stay after the compacted history. A provider that compacts
// inside a request returns the history with its response (Anthropic's
// does): append the response to the session first, then RecordCompaction; the
// messages of res from its summary on that were appended since (the
// compaction block and the rest of the response) are recognised and not
// doubled.
// When res has an Account, every message it keeps must be the live
// history's message at its index (a summary may be merged in front of
// it), and every message after the summary
// must be one it keeps or one appended since; a system prompt must be the
// live history's either way. Otherwise RecordCompaction refuses res, changing
// nothing, with an error wrapping ErrMismatch that names the index.
//
// With recall on (WithRecall), the line that points the model at the
// archive goes into the system prompt (a history without one gets none):
// the provider's summary is its own, and a provider may refuse a summary
// it did not write as it wrote it. The line is replaced by the next
// compaction, whoever does it.
//
// A nil res, a skipped one, and one that changes nothing (the provider
// only cleared tool results on its side) record nothing. A recorded
// compaction counts in Status().Compactions and RecordedCompactions.
//
// The Result's indexes must count the session's messages: the anthropic
// adapter's do when each request is the session's history restored onto
// the host's blocks (see its examples/nativeloop); openaigo's
// CompressItems counts items, which its examples/responsesloop moves to
// messages before recording.
func (s *Session) RecordCompaction(ctx context.Context, res *compact.Result) error {
	if res == nil || res.Skipped != "" {
		return nil
	}
	run, resume := s.stopBackground()
	defer resume()
	if err := s.acquire(ctx, s.noWait); err != nil {
		return err
	}
	defer s.release()
	if run != nil {
		// It gave the slot back; it ends as soon as it has said so, and
		// Status must not show it running after RecordCompaction returns.
		select {
		case <-run.done:
		case <-ctx.Done():
			return s.errorf("record", ctx.Err())
		}
	}
	_, _, err := s.compressHeld(ctx, kindRecorded, func(_ context.Context, in []compact.Message, _ ...compact.CompressOption) (*compact.Result, error) {
		out, err := adopt(in, res)
		if err != nil {
			return nil, s.errorf("record", err)
		}
		return out, nil
	}, nil)
	return err
}

// adopt returns res, a compaction of in's first res.MessagesBefore
// messages, as a compaction of all of in: the messages of in that came
// after its input follow its Messages, those it holds already (its
// provider's response) once. Summaries and the system prompt of in carry
// no recall line; adopt takes them off res too. Its Result is a copy:
// res is not modified.
func adopt(in []compact.Message, res *compact.Result) (*compact.Result, error) {
	k := res.MessagesBefore
	if k < 1 || k > len(in) {
		return nil, fmt.Errorf("%w: the result read %d messages; the live history holds %d", ErrMismatch, k, len(in))
	}
	msgs, _ := stripRecallLines(res.Messages)
	if err := compact.Validate(msgs); err != nil {
		return nil, fmt.Errorf("%w: the result's history: %w", ErrMismatch, err)
	}
	at := max(res.SummaryIndex, -1)
	if at >= len(msgs) || at >= 0 && !compact.IsSummary(msgs[at]) {
		return nil, fmt.Errorf("%w: the result's message %d (its SummaryIndex) is no summary", ErrMismatch, at)
	}
	if at >= 0 && res.SummarizedFrom >= 0 && (res.SummarizedFrom > res.SummarizedTo || res.SummarizedTo >= k) {
		return nil, fmt.Errorf("%w: the result folds messages %d to %d of the %d it read",
			ErrMismatch, res.SummarizedFrom, res.SummarizedTo, k)
	}
	if err := checkSystem(in, msgs); err != nil {
		return nil, err
	}
	own, err := checkAccount(in[:k], msgs, res.Account)
	if err != nil {
		return nil, err
	}
	// The messages from the summary on that were appended since the input:
	// a provider's response, its summary (Anthropic's compaction block)
	// included.
	tail := in[k:]
	m := min(len(tail), len(msgs)-max(at, 0))
	for ; m > 0; m-- {
		if sameRun(msgs[len(msgs)-m:], tail[:m]) {
			break
		}
	}
	if own != nil {
		for i := at + 1; i < len(msgs)-m; i++ {
			if !own[i] {
				return nil, fmt.Errorf("%w: the result's message %d is neither one it read nor one appended since "+
					"(append the provider's response before recording its compaction)", ErrMismatch, i)
			}
		}
	}
	if at < 0 && len(msgs) == k && sameRun(msgs, in[:k]) {
		return &compact.Result{Skipped: "the result changes nothing"}, nil
	}
	out := *res
	out.Messages = concat(msgs, compact.Clone(tail[m:]))
	out.MessagesBefore, out.MessagesAfter = len(in), len(out.Messages)
	if m < len(tail) {
		if err := compact.Validate(out.Messages); err != nil {
			return nil, fmt.Errorf("%w: the result followed by the %d messages appended after its input: %w", ErrMismatch, len(tail)-m, err)
		}
	}
	return &out, nil
}

// checkSystem refuses msgs when in opens on a system prompt that msgs
// does not (a compaction note may follow it).
func checkSystem(in, msgs []compact.Message) error {
	if len(in) == 0 || in[0].Role != compact.RoleSystem {
		return nil
	}
	if len(msgs) == 0 || msgs[0].Role != compact.RoleSystem || !hasPrefixText(msgs[0], in[0]) {
		return fmt.Errorf("%w: message 0: the result's system prompt is not the live history's", ErrMismatch)
	}
	return nil
}

// hasPrefixText reports whether m's text starts with p's.
func hasPrefixText(m, p compact.Message) bool {
	t, pt := compact.Text(m), compact.Text(p)
	return len(t) >= len(pt) && t[:len(pt)] == pt
}

// checkAccount checks the fates of account (nil: nothing to check)
// against in, the input, and msgs, the result's history: one fate per
// input message, and every message kept where it says, as the input has
// it. It returns which messages of msgs are the input's, nil without an
// account.
func checkAccount(in, msgs []compact.Message, account []compact.MessageFate) ([]bool, error) {
	if account == nil {
		return nil, nil
	}
	if len(account) != len(in) {
		return nil, fmt.Errorf("%w: the result accounts for %d messages; it read %d", ErrMismatch, len(account), len(in))
	}
	own := make([]bool, len(msgs))
	for j, f := range account {
		if f.Index != j {
			return nil, fmt.Errorf("%w: message %d: the result's account names message %d in its place", ErrMismatch, j, f.Index)
		}
		switch f.Fate {
		case "folded", "carried", "merged", "dropped":
			continue
		}
		o := f.Output
		if o < 0 || o >= len(msgs) {
			return nil, fmt.Errorf("%w: message %d: the result puts it at %d, outside its %d messages", ErrMismatch, j, o, len(msgs))
		}
		own[o] = true
		exact := f.Fate == "kept" || f.Fate == "lifted"
		if exact && !sameMessage(msgs[o], in[j]) && !sharesWith(msgs[o], in[j]) && !(j == 0 && in[j].Role == compact.RoleSystem) {
			return nil, fmt.Errorf("%w: message %d: the result keeps it as its message %d, which differs from the live history's",
				ErrMismatch, j, o)
		}
		if !exact && msgs[o].Role != in[j].Role {
			return nil, fmt.Errorf("%w: message %d: the result puts a %s message in place of the live history's %s one",
				ErrMismatch, j, msgs[o].Role, in[j].Role)
		}
	}
	return own, nil
}

// sharesWith reports whether m is own with a summary merged in front of
// its content (see compact.WithUserFirst): kept, with what it shares.
func sharesWith(m, own compact.Message) bool {
	_, rest, ok := msg.SplitMerged(m)
	return ok && sameMessage(rest, own)
}

// sameRun reports whether a and b hold the same messages.
func sameRun(a, b []compact.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameMessage(a[i], b[i]) {
			return false
		}
	}
	return true
}
