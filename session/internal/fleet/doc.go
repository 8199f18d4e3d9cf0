// Package fleet holds only a test: several OS processes sharing one store
// (a SQLite file, then a Postgres database) compact the same sessions at
// once, one of them is killed mid-compaction, and the store must come out
// with nothing lost, duplicated or reordered, and no two compactions of a
// session overlapping.
package fleet
