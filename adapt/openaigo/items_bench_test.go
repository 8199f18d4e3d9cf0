package openaigo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/sharedtest"
)

// benchItems is the longest of the shared transcripts as Responses items,
// a reasoning item before every turn, or the longest generated history
// when the transcripts are not there.
func benchItems(b *testing.B) []Item {
	b.Helper()
	var best []Item
	var files []string
	if dir := sharedtest.Dir(); dir != "" {
		files, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var msgs []compact.Message
		if json.Unmarshal(data, &msgs) != nil {
			continue
		}
		if items, err := ItemsFromMessages(msgs); err == nil && len(items) > len(best) {
			best = withReasoning(items)
		}
	}
	for seed := uint64(0); best == nil && seed < 50; seed++ {
		if items := genHistory(seed); len(items) > len(best) {
			best = items
		}
	}
	return best
}

// BenchmarkConvertItems converts a long history, as every call of
// CompressItems and ShouldCompressItems does.
func BenchmarkConvertItems(b *testing.B) {
	items := benchItems(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ConvertItems(items); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(items)), "items")
}

// BenchmarkCompressItemsUnderThreshold is the cost of the call a host makes
// before every request when there is nothing to do: convert, count, skip.
func BenchmarkCompressItemsUnderThreshold(b *testing.B) {
	items := benchItems(b)
	engine := compact.New(compact.WithContextWindow(10_000_000))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := CompressItems(context.Background(), engine, items); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestoreItems restores a compaction of a long history.
func BenchmarkRestoreItems(b *testing.B) {
	items := benchItems(b)
	conv, err := ConvertItems(items)
	if err != nil {
		b.Fatal(err)
	}
	res, err := compact.New(compact.WithContextWindow(16_000)).Compress(context.Background(), conv.Messages, compact.Force())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conv.Restore(res.Messages); err != nil {
			b.Fatal(err)
		}
	}
}
