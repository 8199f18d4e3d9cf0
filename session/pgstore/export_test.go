package pgstore

// WithTrigramExtension makes migration 4 build its index with the named
// extension instead of pg_trgm: the tests name one the server lacks.
func WithTrigramExtension(name string) Option {
	return func(c *config) { c.trigrams = name }
}
