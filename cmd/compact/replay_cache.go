package main

import (
	"crypto/sha256"
	"encoding/json"
	"time"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
)

// This file simulates a provider's prompt cache, the rule -h states: a
// request's longest run of leading messages byte-identical to the previous
// request's is read from the cache when the cache is warm and the run is
// long enough to have been stored; the rest of the request is written to
// it (billed at the write price), or, for a request too short to be
// stored, billed in full. A cache not used for longer than its lifetime is
// cold. A family without a prompt cache bills every input token in full.

// msgKey identifies a message's bytes: two messages with one key are sent
// identically.
type msgKey [sha256.Size]byte

// keyOf returns m's key, the hash of its JSON encoding.
func keyOf(m compact.Message) msgKey {
	data, err := json.Marshal(m)
	if err != nil {
		// A message go-openai cannot encode is never sent identically:
		// key it by a hash of the error so it matches nothing cached.
		data = []byte("\x00unencodable: " + err.Error())
	}
	return sha256.Sum256(data)
}

// promptCache is one provider's prompt cache over a conversation. The zero
// value is not usable; newPromptCache makes one.
type promptCache struct {
	lifetime  time.Duration // 0: no prompt cache
	minPrefix int

	keys   []msgKey      // the messages of the request last stored
	stored bool          // whether that request was long enough to be stored
	at     time.Duration // when it was sent, on the simulated clock
}

// newPromptCache returns an empty cache with p's lifetime and minimum
// prefix.
func newPromptCache(p models.Pricing) *promptCache {
	return &promptCache{lifetime: p.CacheLifetime, minPrefix: p.MinCachePrefix}
}

// bill returns how a request is billed: its messages' keys and token
// counts, the tokens the request adds beyond its messages (the reply
// priming), and when it is sent. The request becomes the cache's content.
func (c *promptCache) bill(keys []msgKey, tokens []int, extra int, now time.Duration) models.Tokens {
	total := extra
	for _, n := range tokens {
		total += n
	}
	if c.lifetime <= 0 {
		return models.Tokens{Uncached: total}
	}
	read := 0
	if c.stored && now-c.at <= c.lifetime {
		for i := 0; i < len(keys) && i < len(c.keys) && keys[i] == c.keys[i]; i++ {
			read += tokens[i]
		}
		if read < c.minPrefix {
			read = 0
		}
	}
	c.keys = append(c.keys[:0], keys...)
	c.at = now
	c.stored = total >= c.minPrefix
	if !c.stored {
		return models.Tokens{Uncached: total}
	}
	return models.Tokens{CacheRead: read, CacheWrite: total - read}
}
