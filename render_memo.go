package compact

import "github.com/contextkit/compact/internal/msg"

// blockMemo remembers the blocks RenderTurns renders with the default
// options, by message and the name of the call a tool result answers, so
// a summarizer's prompt rendered again for a grown history renders only
// its new messages. A nil *blockMemo remembers nothing.
type blockMemo struct{ m *msg.TextMemo }

// blockMemoBytes bounds a generation of a Compressor's memo: a 260k-token
// history renders to about 0.5 MB with the default caps.
const blockMemoBytes = 1 << 20

// block returns m rendered as RenderTurns renders it with o.
func (bm *blockMemo) block(m Message, toolName string, o RenderOptions) string {
	render := func() string { return o.cleanBlock(renderMessage(m, toolName, o)) }
	if bm == nil {
		return render()
	}
	return bm.m.Get(m, toolName, render)
}

// prompt renders req's prompt as SummaryPrompt does, the turns' blocks
// remembered.
func (bm *blockMemo) prompt(req SummaryRequest) (instructions, material string) {
	return summaryPrompt(req, bm)
}
