// Package bench compares the root package's token counter with
// pkoukk/tiktoken-go and tiktoken-go/tokenizer on the shared transcripts.
// It is a module of its own so that the libraries it measures against
// never enter the root module's requirements.
//
//	cd bench && go test -run '^$' -bench . -benchtime 5x -count 3
package bench
