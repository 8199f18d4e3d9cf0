package compact_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tokens"
)

// partialConversation is a coding session of three requests, each answered after
// a command with a long output.
func partialConversation() []compact.Message {
	msgs := []compact.Message{{Role: compact.RoleSystem, Content: "You are a coding agent."}}
	for i, req := range []string{"Make the tests pass.", "Now speed up the parser.", "Add a changelog entry."} {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			compact.Message{Role: compact.RoleUser, Content: req},
			bashCall(id, "go test ./..."),
			toolResult(id, strings.Repeat("ok   example.com/pkg/module  0.01s\n", 40)),
			compact.Message{Role: compact.RoleAssistant, Content: fmt.Sprintf("Done with request %d.", i+1)})
	}
	return msgs
}

// roleLine pictures a history by the first letter of each role.
func roleLine(msgs []compact.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(m.Role[0])
	}
	return b.String()
}

func newExampleCompressor() *compact.Compressor {
	return compact.New(compact.WithContextWindow(16_000), compact.WithTokenCounter(tokens.Estimator{}))
}

// A host hands the text after "/compress" to ParseCompressArgs and runs a
// partial or a full compaction accordingly.
func ExampleParseCompressArgs() {
	for _, args := range []string{"", "here", "here 3", "up to here 500", "--keep=0", "here the parser", "the parser"} {
		fmt.Printf("%-16q %+v\n", args, compact.ParseCompressArgs(args))
	}
	// Output:
	// ""               {Partial:false Keep:0 Focus:}
	// "here"           {Partial:true Keep:2 Focus:}
	// "here 3"         {Partial:true Keep:3 Focus:}
	// "up to here 500" {Partial:true Keep:100 Focus:}
	// "--keep=0"       {Partial:true Keep:1 Focus:}
	// "here the parser" {Partial:true Keep:2 Focus:the parser}
	// "the parser"     {Partial:false Keep:0 Focus:the parser}
}

// "/compress here 1" keeps the last exchange byte-identical and folds the
// rest into one summary.
func ExampleCompressHere() {
	ctx := context.Background()
	msgs := partialConversation()
	engine := newExampleCompressor()

	var res *compact.Result
	var err error
	switch cmd := compact.ParseCompressArgs("here 1"); {
	case cmd.Partial:
		res, err = compact.CompressHere(ctx, engine, msgs, cmd.Keep, compact.WithFocus(cmd.Focus))
	default:
		res, err = engine.Compress(ctx, msgs, compact.Force(), compact.WithFocus(cmd.Focus))
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Messages
	fmt.Println("before:", roleLine(msgs))
	fmt.Println("after: ", roleLine(out))
	fmt.Println("summarised:", res.SummarizedFrom, "to", res.SummarizedTo)
	// The history opens on a user turn: the summary shares the last
	// exchange's request, merged in front of it.
	fmt.Println("last exchange intact:", reflect.DeepEqual(out[len(out)-3:], msgs[len(msgs)-3:]),
		strings.HasSuffix(out[res.SummaryIndex].Content, "\n\n"+msgs[len(msgs)-4].Content))
	// Output:
	// before: s u a t a u a t a u a t a
	// after:  s u a t a
	// summarised: 1 to 8
	// last exchange intact: true true
}

// SplitExchanges shows what "/compress here N" would keep, without
// compacting anything.
func ExampleSplitExchanges() {
	head, tail, err := compact.SplitExchanges(partialConversation(), 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("summarise:", roleLine(head))
	fmt.Println("keep:     ", roleLine(tail), "from", tail[0].Content)
	// Output:
	// summarise: s u a t a
	// keep:      u a t a u a t a from Now speed up the parser.
}

// SplitAt moves a boundary a person picked off a tool result, back to the
// call it answers.
func ExampleSplitAt() {
	head, tail, err := compact.SplitAt(partialConversation(), 7) // a tool result
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(head), roleLine(tail))
	// Output:
	// 6 a t a u a t a
}

// "Summarize up to here" on the second request keeps it and everything
// after it.
func ExampleCompressBefore() {
	msgs := partialConversation()
	res, err := compact.CompressBefore(context.Background(), newExampleCompressor(), msgs, 5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(roleLine(res.Messages))
	fmt.Println(res.SummaryIndex, compact.IsSummary(res.Messages[1]), compact.IsRealUser(res.Messages[1]))
	// Output:
	// s u a t a u a t a
	// 1 true true
}

// "Summarize from here" keeps the first exchange, folds the rest, and
// brings the latest request back verbatim after the summary.
func ExampleCompressFrom() {
	msgs := partialConversation()
	res, err := compact.CompressFrom(context.Background(), newExampleCompressor(), msgs, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Messages
	fmt.Println(roleLine(out))
	fmt.Println(compact.IsSummary(out[res.SummaryIndex]), out[len(out)-1].Content)
	// Output:
	// s u a t a u
	// true Add a changelog entry.
}

// CompressRange folds the messages asked for and keeps everything else
// verbatim. Here the range is the second exchange; a summary between the
// first exchange's answer and the third request could take neither role,
// so the range grows back by that answer, as Result.SummarizedFrom says.
func ExampleCompressor_CompressRange() {
	msgs := partialConversation()
	res, err := newExampleCompressor().CompressRange(context.Background(), msgs, 5, 9, compact.Force())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(roleLine(res.Messages))
	fmt.Println(res.SummarizedFrom, res.SummarizedTo, res.SummaryIndex)
	// Output:
	// s u a t a u a t a
	// 4 8 4
}
