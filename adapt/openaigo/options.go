package openaigo

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/openai/openai-go/v3/option"
)

// Option sets an option of a NativeEngine.
type Option func(*config)

// config is a NativeEngine's settings; newConfig sets the defaults.
type config struct {
	instructions string
	timeout      time.Duration
	logger       *slog.Logger
	backoff      []time.Duration
	now          func() time.Time
	requestOpts  []option.RequestOption
	adjusted     []string // invalid values given, and what was kept
}

// The waits after the first, second and later native compaction failures
// before NativeEngine asks the provider again on its own: DESIGN.md's
// summarizer backoff, which the Compressor uses too.
const (
	firstBackoff  = 60 * time.Second
	secondBackoff = 300 * time.Second
	laterBackoff  = 900 * time.Second
)

func newConfig(opts []Option) config {
	c := config{
		logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		backoff: []time.Duration{firstBackoff, secondBackoff, laterBackoff},
		now:     time.Now,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// reject records that opt was given an invalid value and that kept stays.
func (c *config) reject(opt string, value, kept any) {
	c.adjusted = append(c.adjusted, fmt.Sprintf("%s(%v): invalid, %v kept", opt, value, kept))
}

// WithInstructions sets the instructions sent with each compaction request
// (its "instructions" field): the same system or developer message the host
// sends as "instructions" on its own requests, if it does. The default ""
// sends none; system and developer messages among the items are sent as
// items either way.
func WithInstructions(s string) Option {
	return func(c *config) { c.instructions = s }
}

// WithTimeout bounds each compaction request; one that runs past it fails
// and the fallback compacts instead. Zero (the default) leaves the caller's
// context as the only bound; a negative timeout is invalid.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.reject("WithTimeout", d, c.timeout)
			return
		}
		c.timeout = d
	}
}

// WithLogger sets where a NativeEngine logs its failures and fallbacks.
// The default (and nil) discards.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithBackoff sets the waits after consecutive failures before an
// unforced compaction asks the provider again (the fallback compacts
// meanwhile); the last repeats. The default is 60 s, 300 s, 900 s. No
// waits turns backoff off; a negative wait is invalid.
func WithBackoff(waits ...time.Duration) Option {
	return func(c *config) {
		for _, w := range waits {
			if w < 0 {
				c.reject("WithBackoff", waits, c.backoff)
				return
			}
		}
		c.backoff = append([]time.Duration(nil), waits...)
	}
}

// WithClock replaces time.Now, for tests of backoff. nil is invalid.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now == nil {
			c.reject("WithClock", "nil", "time.Now")
			return
		}
		c.now = now
	}
}

// WithRequestOptions adds SDK request options to each compaction request
// (after the client's own): a header, a prompt cache key
// (option.WithJSONSet("prompt_cache_key", ...)), fewer retries. The
// default adds none.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.requestOpts = append(c.requestOpts, opts...) }
}
