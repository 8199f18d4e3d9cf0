// Package tokens counts the tokens text and chat messages take in a model
// request, exactly as OpenAI's tiktoken does, without the network and
// without cgo.
//
// It is the fastest exact tiktoken-compatible counter in Go: counting
// every text of 30 real agent transcripts (1.23 MB) with a fresh counter
// on one goroutine, [Exact] reads 67–72 MB/s in o200k_base and 76–81 MB/s
// in cl100k_base, where pkoukk/tiktoken-go reads 2.6–3.9 MB/s and
// tiktoken-go/tokenizer 5.9–8.7 MB/s (and is 3 tokens off). A fresh process
// is ready to count in 13–19 ms for o200k_base, with 6 MB of heap. The
// figures come from the repository's bench module:
//
//	cd bench && go test -run '^$' -bench 'CountTranscripts|Ready' -benchtime 5x -count 3
//
// Its counts are tiktoken's encode_ordinary counts on all text, checked
// against tiktoken-go on every text of those transcripts, on tiktoken's
// published token ids, on random text over every Unicode class the
// encodings' patterns tell apart, and by a differential fuzz target. No
// text is slow: merging takes n log n time on any unbroken run, such as
// base64 or minified data.
//
// # Counting
//
// [ForModel] returns the exact counter for a model name, [ForEncoding]
// for an encoding ([EncodingO200KBase], [EncodingCL100KBase]). Both return
// an [*Exact], which counts text (CountText) and chat messages
// (CountMessage, with OpenAI's per-message framing) and remembers the
// counts of the messages it has seen, so recounting a history that grew by
// one message tokenises only that message. [CountMessages] counts a whole
// request; [Tally] keeps a running count of an append-only history;
// [CountTools] counts the tool definitions a request carries.
//
// [Estimator] estimates from byte lengths, for where exact counting is too
// costly or the model's tokenizer is unknown. Any type with the two
// methods of [Counter] works wherever a counter is asked for;
// [MessageTokens] counts a message by the same rules over any tokenizer.
//
//	tc, err := tokens.ForModel("gpt-4o")
//	if err != nil {
//		return err
//	}
//	n := tokens.CountMessages(tc, msgs)
//
// Messages are go-openai's [openai.ChatCompletionMessage], the type
// package compact aliases as compact.Message.
//
// # Cost
//
// Counting allocates nothing per piece once a counter is warm. A cold
// 1,000-message history (1.1 MB) counts in about 17 ms in o200k_base; with
// 999 of its messages memoised, in about 0.3 ms; [Tally.Add] of one message
// takes 1 to 4 µs whatever the history's length. The repository's
// docs/benchmarks.md has every figure with its command:
//
//	go test -run '^$' -bench 'Count|Tally|Recount' -benchmem -count 3 ./tokens/
package tokens
