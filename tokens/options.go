package tokens

import "fmt"

// Option configures the counters [ForModel] and [ForEncoding] build. An
// option given an invalid value changes nothing: the default stays in
// force and [Exact.Adjusted] names the option and the value kept. A nil
// Option is ignored.
type Option func(*config)

// config is every setting an Option can make; newConfig sets the defaults
// in one place.
type config struct {
	cacheSize   int
	imageTokens int
	adjusted    []string
}

// defaultCacheSize is how many per-message counts an Exact counter keeps
// unless WithCacheSize says otherwise: enough for the histories of many
// concurrent sessions, at about 40 bytes an entry (2.5 MB when full).
const defaultCacheSize = 1 << 16

func newConfig(opts []Option) config {
	cfg := config{cacheSize: defaultCacheSize, imageTokens: defaultImageTokens}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	return cfg
}

// reject records that option was given an invalid value and kept kept.
func (c *config) reject(option string, value, kept any) {
	c.adjusted = append(c.adjusted, fmt.Sprintf("%s(%v): invalid, %v kept", option, value, kept))
}

// WithCacheSize bounds the memo of per-message counts to about n entries,
// and the memo of the chunks of long texts (see [Exact]) to as many. The
// default is 65,536. Each memo keeps two generations of n/2: when the newer
// one is full the older is dropped, so the counts of a history being
// recounted stay while stale ones age out. Zero disables both; a negative
// size is invalid.
func WithCacheSize(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.reject("WithCacheSize", n, c.cacheSize)
			return
		}
		c.cacheSize = n
	}
}

// WithImageTokens sets what an image of detail "high" or "auto" costs. The
// default is 765 (one 1024x1024 image by OpenAI's vision pricing); an image
// of detail "low" always costs 85. A negative cost is invalid.
func WithImageTokens(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.reject("WithImageTokens", n, c.imageTokens)
			return
		}
		c.imageTokens = n
	}
}
