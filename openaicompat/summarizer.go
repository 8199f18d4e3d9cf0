package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand"
	"strings"
	"sync"
	"time"

	"github.com/contextkit/compact"
	openai "github.com/sashabaranov/go-openai"
)

// Defaults of an Summarizer, each replaceable by an option.
const (
	// defaultOpenAIAttemptTimeout bounds one request. It is long enough for a
	// hosted model to read ~100k tokens of material and write a few thousand;
	// a local model on modest hardware may need WithAttemptTimeout.
	defaultOpenAIAttemptTimeout = 2 * time.Minute

	// defaultOpenAIMaxRetries is how many times a transient failure is
	// retried (three attempts in all), the count OpenAI's own SDKs use.
	defaultOpenAIMaxRetries = 2

	// defaultOpenAIBackoffBase and defaultOpenAIBackoffMax are the first
	// and the largest wait between attempts, as in OpenAI's own SDKs.
	defaultOpenAIBackoffBase = 500 * time.Millisecond
	defaultOpenAIBackoffMax  = 8 * time.Second
)

// Output ceiling derived from SummaryRequest.TargetTokens when
// WithMaxOutputTokens is not given. The prompt, not the ceiling, sets a
// summary's length, and the Compressor cuts one that runs far past its
// target; the ceiling only stops a runaway generation. Reasoning models
// count their hidden reasoning against it, hence the floor.
const (
	outputTokensHeadroom = 2
	minOutputTokens      = 4096
)

// Summarizer is a Summarizer that asks a model behind any
// OpenAI-compatible Chat Completions endpoint (OpenAI, Azure through a
// configured client, vLLM, llama.cpp's server, Ollama's /v1, LiteLLM...) to
// write the summary.
//
// It sends SummaryPrompt's instructions as the system message and its
// material as the user message (or, offered the agent's own history for
// its own model, that history and one instruction after it: see
// WithPrefixSharing), and returns the first choice's text, trimmed
// and stripped of a summary prefix, a leading reasoning block or wrapping
// markup the model added. Transient failures (rate limits, 408, 409, 5xx,
// transport errors, an attempt that timed out) are retried with exponential
// backoff and jitter, never past ctx's deadline; a Retry-After the endpoint
// sends is honoured. Failures come back as *Error.
//
// The library reads no environment variables: the endpoint and key are what
// the options say (the compact command reads OPENAI_API_KEY and
// OPENAI_BASE_URL and passes them in). Nothing touches the network until
// Summarize is called. An Summarizer is safe for concurrent use.
type Summarizer struct {
	client          *openai.Client
	model           string
	apiKey          string // only to scrub from error text
	attemptTimeout  time.Duration
	maxRetries      int
	backoffBase     time.Duration
	backoffMax      time.Duration
	temperature     float32
	setTemperature  bool
	maxOutputTokens int
	legacyMaxTokens bool
	noSharing       bool // WithPrefixSharing(false)
	logger          *slog.Logger

	mu  sync.Mutex // guards rng
	rng *rand.Rand
}

// New returns a summarizer that asks model, behind the
// endpoint the options describe, to write summaries. model is required; it
// is sent as is, so any name the endpoint serves works. It makes no network
// call.
func New(model string, opts ...Option) (*Summarizer, error) {
	cfg := config{
		attemptTimeout: defaultOpenAIAttemptTimeout,
		maxRetries:     defaultOpenAIMaxRetries,
		backoffBase:    defaultOpenAIBackoffBase,
		backoffMax:     defaultOpenAIBackoffMax,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	bad := func(format string, args ...any) (*Summarizer, error) {
		return nil, fmt.Errorf("compact: New: "+format, args...)
	}
	model = strings.TrimSpace(model)
	switch {
	case model == "":
		return bad("a model name is required")
	case cfg.attemptTimeout < 0:
		return bad("attempt timeout %v is negative", cfg.attemptTimeout)
	case cfg.maxRetries < 0:
		return bad("max retries %d is negative", cfg.maxRetries)
	case cfg.backoffBase < 0 || cfg.backoffMax < cfg.backoffBase:
		return bad("backoff base %v and max %v: want 0 <= base <= max", cfg.backoffBase, cfg.backoffMax)
	case cfg.setTemperature && (cfg.temperature < 0 || cfg.temperature > 2 || math.IsNaN(float64(cfg.temperature))):
		return bad("temperature %v is outside [0, 2]", cfg.temperature)
	case cfg.maxOutputTokens < 0:
		return bad("max output tokens %d is negative", cfg.maxOutputTokens)
	}

	client, err := cfg.buildClient()
	if err != nil {
		return bad("%v", err)
	}
	logger := cfg.logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	seed := cfg.seed
	if !cfg.setSeed {
		seed = time.Now().UnixNano()
	}
	return &Summarizer{
		client:          client,
		model:           model,
		apiKey:          cfg.apiKey,
		attemptTimeout:  cfg.attemptTimeout,
		maxRetries:      cfg.maxRetries,
		backoffBase:     cfg.backoffBase,
		backoffMax:      cfg.backoffMax,
		temperature:     cfg.temperature,
		setTemperature:  cfg.setTemperature,
		maxOutputTokens: cfg.maxOutputTokens,
		legacyMaxTokens: cfg.legacyMaxTokens,
		noSharing:       cfg.noSharing,
		logger:          logger,
		rng:             rand.New(rand.NewSource(seed)),
	}, nil
}

// Name returns "openai:" followed by the model name (the summarizer is a
// compact.Namer).
func (s *Summarizer) Name() string { return "openai:" + s.model }

// Summarize asks the model to summarise req. It follows the Summarizer
// contract; its failures are *Error values, except a done ctx,
// which yields an error wrapping both ErrSummarizer and ctx.Err().
func (s *Summarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", s.ctxError(ctx, 0)
	}
	if len(req.Turns) == 0 && strings.TrimSpace(req.PreviousSummary) == "" {
		return "", fmt.Errorf("%w: %s: the request has no turns and no previous summary", compact.ErrNothingToCompress, s.Name())
	}
	creq := s.request(req)
	for attempt := 1; ; attempt++ {
		summary, fail := s.attempt(ctx, creq)
		if fail == nil {
			s.logger.LogAttrs(ctx, slog.LevelDebug, "summary received",
				slog.String("summarizer", s.Name()), slog.Int("attempt", attempt), slog.Int("bytes", len(summary)))
			return summary, nil
		}
		if ctx.Err() != nil {
			return "", s.ctxError(ctx, attempt)
		}
		fail.err.Attempts = attempt
		wait, ok := s.retryWait(ctx, attempt, fail)
		if !ok {
			s.logger.LogAttrs(ctx, slog.LevelDebug, "summarizer failed",
				slog.String("summarizer", s.Name()), slog.Int("attempts", attempt), slog.String("error", fail.err.Error()))
			return "", fail.err
		}
		s.logger.LogAttrs(ctx, slog.LevelInfo, "retrying summarizer",
			slog.String("summarizer", s.Name()), slog.Int("attempt", attempt),
			slog.Int("status", fail.err.StatusCode), slog.Duration("wait", wait))
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", s.ctxError(ctx, attempt)
		case <-timer.C:
		}
	}
}

// request builds the chat completion request for req: the shared
// History when the request offers it for this summarizer's model (see
// WithPrefixSharing), the rendered prompt otherwise.
func (s *Summarizer) request(req compact.SummaryRequest) openai.ChatCompletionRequest {
	var creq openai.ChatCompletionRequest
	if req.History != nil && s.SharesPrefix(req.Model) {
		creq = s.sharedRequest(req)
	} else {
		instructions, material := compact.SummaryPrompt(req)
		creq = openai.ChatCompletionRequest{
			Model: s.model,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: instructions},
				{Role: openai.ChatMessageRoleUser, Content: material},
			},
		}
	}
	if s.setTemperature {
		creq.Temperature = s.temperature
		if creq.Temperature == 0 {
			creq.Temperature = math.SmallestNonzeroFloat32
		}
	}
	limit := s.maxOutputTokens
	if limit == 0 && req.TargetTokens > 0 {
		limit = max(min(req.TargetTokens, math.MaxInt32/outputTokensHeadroom)*outputTokensHeadroom, minOutputTokens)
	}
	if s.legacyMaxTokens {
		//lint:ignore SA1019 the field is deprecated by OpenAI but is the one older servers know
		creq.MaxTokens = limit
	} else {
		creq.MaxCompletionTokens = limit
	}
	return creq
}

// attempt sends creq once and returns the summary or what went wrong.
func (s *Summarizer) attempt(ctx context.Context, creq openai.ChatCompletionRequest) (string, *failure) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if s.attemptTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, s.attemptTimeout)
	}
	resp, err := s.client.CreateChatCompletion(actx, creq)
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	if err != nil {
		return "", s.classify(err, resp.Header(), timedOut)
	}
	return s.summary(resp)
}

// summary extracts the summary from a successful response.
func (s *Summarizer) summary(resp openai.ChatCompletionResponse) (string, *failure) {
	if len(resp.Choices) == 0 {
		return "", s.permanent("the response has no choices")
	}
	choice := resp.Choices[0]
	text := cleanSummary(choice.Message.Content)
	if text != "" {
		if choice.FinishReason == openai.FinishReasonLength {
			s.logger.Warn("summary cut short by the output limit", slog.String("summarizer", s.Name()))
		}
		return text, nil
	}
	switch {
	case choice.Message.Refusal != "":
		return "", s.permanent("the model refused: " + shortText(choice.Message.Refusal, s.apiKey))
	case choice.FinishReason == openai.FinishReasonLength:
		return "", s.permanent("the summary is empty: the model stopped at the output limit (reasoning may have used it up)")
	case choice.FinishReason == openai.FinishReasonContentFilter:
		return "", s.permanent("the summary is empty: the endpoint's content filter stopped it")
	}
	return "", s.permanent("the summary is empty")
}

// retryWait returns how long to wait before retrying after fail, or false
// when it should not be retried: a permanent failure, no retries left, a
// wait the endpoint asked for that is too long, or one that would end past
// ctx's deadline.
func (s *Summarizer) retryWait(ctx context.Context, attempt int, fail *failure) (time.Duration, bool) {
	if !fail.retry || attempt > s.maxRetries {
		return 0, false
	}
	if fail.err.RetryAfter > maxRetryAfter {
		return 0, false
	}
	wait := max(s.backoff(attempt), fail.err.RetryAfter)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
		return 0, false
	}
	return wait, true
}

// backoff returns the jittered wait before retry n (1 for the first): the
// base doubled n-1 times, capped at the maximum, then drawn uniformly from
// its upper half so concurrent callers spread out without ever retrying
// immediately.
func (s *Summarizer) backoff(n int) time.Duration {
	d := s.backoffBase
	for i := 1; i < n && d < s.backoffMax; i++ {
		d *= 2
	}
	d = min(d, s.backoffMax)
	if d <= 1 {
		return d
	}
	s.mu.Lock()
	j := time.Duration(s.rng.Int63n(int64(d/2) + 1))
	s.mu.Unlock()
	return d - d/2 + j
}

// ctxError reports that ctx ended the call after attempts attempts.
func (s *Summarizer) ctxError(ctx context.Context, attempts int) error {
	return fmt.Errorf("%w: %s: stopped after %d attempts: %w", compact.ErrSummarizer, s.Name(), attempts, ctx.Err())
}
