module github.com/contextkit/compact/bench

go 1.26.0

require (
	github.com/contextkit/compact v0.1.0
	github.com/tiktoken-go/tokenizer v0.10.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
