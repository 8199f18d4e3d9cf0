package tiktokengo_test

import (
	"fmt"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/tiktokengo"
	"github.com/contextkit/compact/tokens"
)

// A host that wants tiktoken-go's own counts hands its counter to the
// Compressor like any other.
func ExampleNew() {
	tc, err := tiktokengo.New(tokens.EncodingO200KBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.CountText("hello world"))
	fmt.Println(tc.CountMessage(compact.Message{Role: "user", Content: "hello world"}))

	c := compact.New(compact.WithContextWindow(128_000), compact.WithTokenCounter(tc))
	fmt.Println(c.ShouldCompressMessages([]compact.Message{{Role: "user", Content: "hello world"}}))
	// Output:
	// 2
	// 6
	// false
}

func ExampleCounter_Encode() {
	tc, err := tiktokengo.New(tokens.EncodingCL100KBase)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tc.Encode("hello world"))
	// Output:
	// [15339 1917]
}
