module github.com/contextkit/compact/adapt/openaigo

go 1.26.0

require (
	github.com/contextkit/compact v0.1.0
	github.com/openai/openai-go/v3 v3.96.0
	github.com/sashabaranov/go-openai v1.43.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
