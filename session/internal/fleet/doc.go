// Package fleet holds only tests of many OS processes sharing one store (a
// SQLite file, then a Postgres database). In the first, processes compact
// the same sessions at once, one of them is killed mid-compaction, and the
// store must come out with nothing lost, duplicated or reordered, and no
// two compactions of a session overlapping. In the second (TestFleetLoad,
// and BenchmarkFleetLoad for the long run), each process keeps sessions of
// its own that append the shared transcripts with background compaction
// and a slow summarizer, beside writers putting the same bytes in by a bare
// insert: Append's latency is measured against the bare insert's, and the
// store is checked afterwards.
package fleet
