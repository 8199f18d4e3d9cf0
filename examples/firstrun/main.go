// Command firstrun compacts a coding session bundled with it, offline (no
// model, no key) and prints what happened.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log"

	"github.com/contextkit/compact"
)

//go:embed session.json
var session []byte

func main() {
	var msgs []compact.Message
	if err := json.Unmarshal(session, &msgs); err != nil {
		log.Fatal(err)
	}
	// A small window, so that this short session is over the threshold.
	// Without WithSummarizer the summary is extractive: offline, free.
	c := compact.New(compact.WithContextWindow(1500))
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		log.Fatal(err)
	}
	if res.Skipped != "" {
		fmt.Println("nothing to do:", res.Skipped)
		return
	}
	fmt.Printf("%d messages, %d tokens -> %d messages, %d tokens\n",
		res.MessagesBefore, res.TokensBefore, res.MessagesAfter, res.TokensAfter)
	fmt.Printf("messages %d-%d became message %d, this summary:\n\n%s\n",
		res.SummarizedFrom, res.SummarizedTo, res.SummaryIndex, res.Summary)
}
