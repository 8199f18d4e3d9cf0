package openaicompat

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/contextkit/compact/redact"
	openai "github.com/sashabaranov/go-openai"
)

// Option configures an Summarizer.
type Option func(*config)

// config collects the options; New validates it.
type config struct {
	baseURL         string
	apiKey          string
	client          *openai.Client
	clientConfig    *openai.ClientConfig
	httpClient      openai.HTTPDoer
	attemptTimeout  time.Duration
	maxRetries      int
	backoffBase     time.Duration
	backoffMax      time.Duration
	temperature     float32
	setTemperature  bool
	maxOutputTokens int
	legacyMaxTokens bool
	logger          *slog.Logger
	seed            int64
	setSeed         bool
	noSharing       bool
}

// WithBaseURL sets the endpoint's base URL, the part before
// "/chat/completions": "https://api.openai.com/v1" (the default),
// "http://localhost:11434/v1" for Ollama, "http://localhost:8080/v1" for
// llama.cpp's server, "http://localhost:8000/v1" for vLLM.
func WithBaseURL(u string) Option {
	return func(c *config) { c.baseURL = u }
}

// WithAPIKey sets the key sent as a bearer token. Without it no
// Authorization header is sent, which local servers accept. The key never
// appears in an error or a log line.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = key }
}

// WithClient makes the summarizer send its requests through an existing
// client, keeping that client's endpoint, key and transport. It cannot be
// combined with the options that build a client (base URL, API key, client
// config, HTTP client).
func WithClient(client *openai.Client) Option {
	return func(c *config) { c.client = client }
}

// WithClientConfig builds the client from cfg (for Azure, an
// organisation, extra headers in a custom transport). WithBaseURL and
// WithHTTPClient override its fields; its key, which go-openai keeps
// private, cannot be replaced, so WithAPIKey is rejected beside it:
// build cfg with openai.DefaultConfig(key) instead. A key set this way is
// not known to the summarizer and is scrubbed from error text only where it
// looks like an OpenAI key.
func WithClientConfig(cfg openai.ClientConfig) Option {
	return func(c *config) { c.clientConfig = &cfg }
}

// WithHTTPClient sends requests through doer, typically an
// *http.Client with its own transport, proxy or TLS settings. Set no
// Timeout on it: WithAttemptTimeout and ctx bound each request.
func WithHTTPClient(doer openai.HTTPDoer) Option {
	return func(c *config) { c.httpClient = doer }
}

// WithAttemptTimeout bounds each attempt (default two minutes); an
// attempt that runs out is retried like a transport error. Zero leaves
// attempts bounded by ctx alone.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *config) { c.attemptTimeout = d }
}

// WithMaxRetries sets how many times a transient failure is retried
// (default 2, so three attempts at most). Zero disables retries.
func WithMaxRetries(n int) Option {
	return func(c *config) { c.maxRetries = n }
}

// WithRetryBackoff sets the wait before the first retry (base) and the
// largest wait (max); the wait doubles each retry and is jittered between
// half and all of it. Defaults: 500ms and 8s. It paces the retries of one
// call; compact.WithBackoff is another idea, the pause of a Compressor's
// summaries after whole calls failed.
func WithRetryBackoff(base, max time.Duration) Option {
	return func(c *config) { c.backoffBase, c.backoffMax = base, max }
}

// WithRetrySeed seeds the jitter of retry waits, making them
// reproducible. By default the seed comes from the clock.
func WithRetrySeed(seed int64) Option {
	return func(c *config) { c.seed, c.setSeed = seed, true }
}

// WithTemperature sets the sampling temperature, from 0 to 2. By
// default none is sent and the endpoint's default applies, because OpenAI's
// reasoning models reject any other value than their own. Zero is sent as
// the smallest positive float32, since go-openai omits a zero temperature.
func WithTemperature(t float32) Option {
	return func(c *config) { c.temperature, c.setTemperature = t, true }
}

// WithMaxOutputTokens fixes the output ceiling sent with every request.
// By default it is twice SummaryRequest.TargetTokens, at least 4096, and
// none when the target is unset.
func WithMaxOutputTokens(n int) Option {
	return func(c *config) { c.maxOutputTokens = n }
}

// WithLegacyMaxTokens sends the output ceiling as "max_tokens" instead
// of "max_completion_tokens", for servers that know only the older field
// (a server that knows neither ignores the ceiling). OpenAI's reasoning
// models reject "max_tokens".
func WithLegacyMaxTokens(on bool) Option {
	return func(c *config) { c.legacyMaxTokens = on }
}

// WithLogger sets where the summarizer logs its attempts and retries.
// By default it logs nothing. Keys and request bodies are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// buildClient returns the client the options ask for.
func (cfg *config) buildClient() (*openai.Client, error) {
	if cfg.client != nil {
		if cfg.baseURL != "" || cfg.apiKey != "" || cfg.clientConfig != nil || cfg.httpClient != nil {
			return nil, errors.New("WithClient cannot be combined with a base URL, an API key, a client config or an HTTP client")
		}
		return cfg.client, nil
	}
	var cc openai.ClientConfig
	if cfg.clientConfig != nil {
		if cfg.apiKey != "" {
			return nil, errors.New("WithAPIKey cannot be combined with WithClientConfig; build the config with openai.DefaultConfig(key)")
		}
		cc = *cfg.clientConfig
	} else {
		cc = openai.DefaultConfig(cfg.apiKey)
	}
	if cfg.baseURL != "" {
		u, err := url.Parse(cfg.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("base URL %q is not an http or https URL", redact.String(cfg.baseURL))
		}
		cc.BaseURL = cfg.baseURL
	}
	if cfg.httpClient != nil {
		cc.HTTPClient = cfg.httpClient
	}
	if cc.HTTPClient == nil {
		return nil, errors.New("the client config has no HTTP client")
	}
	return openai.NewClientWithConfig(cc), nil
}
