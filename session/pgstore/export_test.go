package pgstore

// WithTrigramExtension makes migration 4 build its index with the named
// extension instead of pg_trgm: the tests name one the server lacks.
func WithTrigramExtension(name string) Option {
	return func(c *config) { c.trigrams = name }
}

// MaxConns is the most connections st's pool opens.
func MaxConns(st *Store) int32 { return st.pool.Config().MaxConns }
