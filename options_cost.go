package compact

import (
	"errors"
	"fmt"

	"github.com/contextkit/compact/models"
)

// WithPricing sets what the conversation's tokens cost and how its prompt
// cache keeps them, in place of what the model table says of the model
// (see WithModel and package models). The default is the table's Pricing,
// unknown for a model it does not price; the zero Pricing makes the prices
// unknown. A Pricing that does not pass [models.Pricing.Check] (a price
// negative or not finite) is invalid.
//
// With prices known a Compressor compacts for a cheaper bill at no loss of
// what it keeps: the compaction note goes into the summary message, so
// the system prompt and the head are still read from the provider's cache;
// pruning alone stands in for a summary only when that costs less per
// request; a summary that could not pay back writing the cached history
// again before the history must shrink anyway is not made (ErrNoSavings);
// with the extractive summarizer, whose summary keeps the user's asks, no
// verbatim copies of earlier user messages are carried (every token kept
// is read again on each request); a compaction may come early while the
// cache has gone cold; and
// a summarizer that can send the agent's own history is offered it when
// that is cheaper than a rendered transcript (see SummaryRequest.History).
// Result.Cost and Status.Cost are priced.
func WithPricing(p models.Pricing) Option {
	return option(func(c *config) {
		var bad *models.PriceError
		if errors.As(p.Check(), &bad) {
			c.reject("WithPricing", fmt.Sprintf("Pricing.%s %v", bad.Field, bad.Value), "the model table's prices")
			return
		}
		c.pricing, c.pricingSet = p, true
	})
}

// WithEconomy sets whether a Compressor compacts for the cheapest session
// at the same facts. The default is false.
//
// In economy mode a compaction is due earlier than the threshold when that
// costs less per request (never later): once the history has grown, from
// its size right after the last compaction, by the square root of twice
// the growth per request (learnt from usage reports) times what a
// compaction costs (its summarizer, and writing what it leaves to the
// cache again), over the price of a cache read: the spacing of the
// cheapest cycle, an economic order quantity. It compacts deep: the tail keeps the last
// 8,000 tokens of conversation verbatim (the whole message that crosses
// that mark, however large; on a window whose default tail is smaller,
// that tail's budget) and not much more, earlier user messages are not
// carried verbatim (the summary keeps them), the summary's target is
// small, and pruning never touches the tail (pruning alone stands in for a
// summary where that costs less per request, as with prices known). The
// latest user message, a pending call group and the extractive summary's
// facts index are kept as always; when the session's archive recalls what
// is folded (SessionMeta.Recall), the facts index may shrink to the
// summary's target. No request goes out over the usable window that a
// deeper compaction could keep under it.
//
// Economy mode needs prices (see WithPricing): with none known the
// Compressor compacts as it does without it, and Status.Economy is false.
func WithEconomy(on bool) Option {
	return option(func(c *config) { c.economy = on })
}
