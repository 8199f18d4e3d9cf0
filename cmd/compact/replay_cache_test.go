package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/models"
)

// keys returns a key for each name: the same name, the same bytes.
func keys(names ...string) []msgKey {
	out := make([]msgKey, len(names))
	for i, n := range names {
		out[i][0], out[i][1] = n[0], byte(len(n))
		copy(out[i][2:], n)
	}
	return out
}

// cacheRequest is one request of a hand-computed case.
type cacheRequest struct {
	msgs   []string
	tokens []int
	at     time.Duration
	want   models.Tokens
}

func TestPromptCacheBillsTheLongestIdenticalRunOfLeadingMessages(t *testing.T) {
	anthropic := models.Pricing{Input: 3, CacheRead: 0.3, CacheWrite: 3.75, CacheLifetime: 5 * time.Minute, MinCachePrefix: 1024}
	noCache := models.Pricing{Input: 10, CacheRead: 10, CacheWrite: 10}
	const priming = 3
	tests := []struct {
		name     string
		p        models.Pricing
		requests []cacheRequest
	}{
		{"the first request writes everything, the next reads it and writes what is new", anthropic, []cacheRequest{
			{[]string{"sys", "u1"}, []int{1000, 200}, 0, models.Tokens{CacheWrite: 1203}},
			{[]string{"sys", "u1", "a1", "t1"}, []int{1000, 200, 50, 400}, 30 * time.Second, models.Tokens{CacheRead: 1200, CacheWrite: 453}},
		}},
		{"an edit in the middle re-bills everything after it", anthropic, []cacheRequest{
			{[]string{"sys", "u1", "a1", "t1"}, []int{1500, 200, 50, 4000}, 0, models.Tokens{CacheWrite: 5753}},
			{[]string{"sys", "u1", "a1", "T1*"}, []int{1500, 200, 50, 100}, time.Minute, models.Tokens{CacheRead: 1750, CacheWrite: 103}},
		}},
		{"a change to the system prompt re-bills the whole request", anthropic, []cacheRequest{
			{[]string{"sys", "u1"}, []int{1500, 200}, 0, models.Tokens{CacheWrite: 1703}},
			{[]string{"sys+note", "u1"}, []int{1510, 200}, time.Minute, models.Tokens{CacheWrite: 1713}},
		}},
		{"a shared run shorter than the minimum prefix is not read", anthropic, []cacheRequest{
			{[]string{"sys", "u1"}, []int{600, 900}, 0, models.Tokens{CacheWrite: 1503}},
			{[]string{"sys", "u2"}, []int{600, 1000}, time.Minute, models.Tokens{CacheWrite: 1603}},
		}},
		{"a request under the minimum prefix is billed in full and stores nothing", anthropic, []cacheRequest{
			{[]string{"sys", "u1"}, []int{500, 300}, 0, models.Tokens{Uncached: 803}},
			{[]string{"sys", "u1", "a1", "u2"}, []int{500, 300, 100, 900}, time.Minute, models.Tokens{CacheWrite: 1803}},
		}},
		{"the cache is warm up to its lifetime and cold after it", anthropic, []cacheRequest{
			{[]string{"sys", "u1"}, []int{2000, 10}, 0, models.Tokens{CacheWrite: 2013}},
			{[]string{"sys", "u1", "a1"}, []int{2000, 10, 10}, 5 * time.Minute, models.Tokens{CacheRead: 2010, CacheWrite: 13}},
			{[]string{"sys", "u1", "a1", "u2"}, []int{2000, 10, 10, 10}, 10*time.Minute + time.Second, models.Tokens{CacheWrite: 2033}},
		}},
		{"without a prompt cache every token is billed in full", noCache, []cacheRequest{
			{[]string{"sys", "u1"}, []int{5000, 10}, 0, models.Tokens{Uncached: 5013}},
			{[]string{"sys", "u1", "a1"}, []int{5000, 10, 10}, time.Second, models.Tokens{Uncached: 5023}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPromptCache(tt.p)
			for i, r := range tt.requests {
				got := c.bill(keys(r.msgs...), r.tokens, priming, r.at)
				assert.Equal(t, r.want, got, "request %d", i+1)
			}
		})
	}
}

// Two messages get one key exactly when they would be sent as the same
// bytes.
func TestKeyOfIsTheMessagesBytes(t *testing.T) {
	msg := func(role, content string) compact.Message { return compact.Message{Role: role, Content: content} }
	a := keyOf(msg(compact.RoleUser, "hello"))
	assert.Equal(t, a, keyOf(msg(compact.RoleUser, "hello")))
	assert.NotEqual(t, a, keyOf(msg(compact.RoleUser, "hello ")))
	assert.NotEqual(t, a, keyOf(msg(compact.RoleAssistant, "hello")))
}

// FuzzPromptCache checks the cache's contracts on any sequence of
// requests: every input token is billed once (read, written or in full);
// what is read is a run of leading messages of the request that the
// previous request also began with; a cold or absent cache reads nothing.
func FuzzPromptCache(f *testing.F) {
	f.Add([]byte{3, 1, 2, 0, 4, 1, 2, 3, 9, 0}, uint16(1024), uint8(10))
	f.Add([]byte{1, 1, 1, 1, 1, 1}, uint16(0), uint8(0))
	f.Fuzz(func(t *testing.T, script []byte, minPrefix uint16, step uint8) {
		p := models.Pricing{Input: 1, CacheRead: 0.1, CacheWrite: 1.25, CacheLifetime: time.Minute, MinCachePrefix: int(minPrefix)}
		c := newPromptCache(p)
		var prev []msgKey
		now := time.Duration(0)
		for len(script) >= 2 {
			n := int(script[0] % 8)
			script = script[1:]
			var ks []msgKey
			var toks []int
			for i := 0; i < n && len(script) > 0; i++ {
				ks = append(ks, msgKey{script[0] % 4})
				toks = append(toks, int(script[0])*37)
				script = script[1:]
			}
			gap := time.Duration(step) * time.Second
			now += gap
			got := c.bill(ks, toks, 3, now)
			total := 3
			for _, x := range toks {
				total += x
			}
			require.True(t, got.CacheRead+got.CacheWrite+got.Uncached == total && got.Output == 0, "billed %+v for a request of %d tokens", got, total)
			shared, run := 0, 0
			for run < len(ks) && run < len(prev) && ks[run] == prev[run] {
				shared += toks[run]
				run++
			}
			require.False(t, got.CacheRead != 0 && (got.CacheRead != shared || got.CacheRead < p.MinCachePrefix || gap > p.CacheLifetime),
				"read %d; the shared run holds %d, the gap was %v", got.CacheRead, shared, gap)
			prev = ks
		}
	})
}
