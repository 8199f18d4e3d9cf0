package bpe

import "testing"

// BenchmarkCountTextLongRun counts 100 KB runs without boundaries (one
// letter, base64, CJK, spaces, a separator): the case a merge that scans
// for each merge, as tiktoken's does, makes quadratic (tiktoken-go took 7 s
// for the letters). The goal is 20 ms or less for each.
//
//	go test -run '^$' -bench CountTextLongRun -benchmem -count 3
func BenchmarkCountTextLongRun(b *testing.B) {
	inputs := longRuns(100 << 10)
	for _, name := range []string{"letters", "base64", "cjk", "spaces", "symbols"} {
		for _, enc := range []string{O200KBase, CL100KBase} {
			b.Run(name+"-100KB/"+enc, func(b *testing.B) {
				c := newCounter(b, enc)
				text := inputs[name]
				c.CountText(text) // the merge's buffers, once per process
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.CountText(text)
				}
			})
		}
	}
}

// BenchmarkBuildEncoding measures what the first counter of a process
// waits for: decoding an embedded rank table and indexing it. The goal is
// 30 ms or less; table-bytes is the heap the index takes (the tokens
// themselves are read in place from the binary).
//
//	go test -run '^$' -bench BuildEncoding -benchmem -count 3
func BenchmarkBuildEncoding(b *testing.B) {
	for _, spec := range []struct {
		name, table string
		next        func(string, int) int
	}{
		{O200KBase, o200kRanks, nextO200k},
		{CL100KBase, cl100kRanks, nextCL100k},
	} {
		b.Run(spec.name, func(b *testing.B) {
			var enc *Encoding
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var err error
				if enc, err = build(spec.name, spec.table, spec.next); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(enc.ranks.memoryBytes()), "table-bytes")
		})
	}
}
