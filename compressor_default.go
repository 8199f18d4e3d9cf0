package compact

// defaultSummarizer is the summarizer a Compressor uses when none is given,
// and its fallback: the extractive summarizer, deterministic and offline.
func defaultSummarizer() Summarizer { return NewExtractiveSummarizer() }
