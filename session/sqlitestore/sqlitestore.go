// Package sqlitestore keeps sessions in a SQLite file: a store.Store, a
// store.Leaser and a store.Searcher on modernc.org/sqlite (pure Go, no
// cgo), for anything that wants its conversations to survive a restart on
// one machine, several processes included.
//
//	st, err := sqlitestore.Open(ctx, "/var/lib/agent/sessions.db")
//	if err != nil { ... }
//	defer st.Close()
//	m := session.NewManager(newEngine, session.WithStore(st))
//
// The file is opened in WAL mode with a busy timeout and foreign keys on,
// set on every pooled connection; writes are short IMMEDIATE transactions,
// one at a time per process, retried while SQLite reports the file busy and
// ctx allows. Writes that arrive while one is running (many sessions'
// appends, say) wait for it and then go together, up to 64, into one
// transaction, each in a savepoint of its own: the file's lock is taken
// once for them all, so that under load an append waits for at most two
// transactions of its own process. The schema is versioned: Open applies the migrations this
// package knows, in one transaction, and refuses a file written by a newer
// version. Messages are kept as JSON, byte for byte (text that is not
// UTF-8 is escaped in it and comes back as it went in). A session's lease
// is a row with a fencing token, timed by this machine's clock. Searches use an FTS5 trigram index over each message's
// text, a long text in overlapping pieces of 4 KiB, checked exactly, kept session by session: a session's first search
// indexes its records, and later ones what was appended since (when more
// than a few hundred records wait), so that appends need not, and a
// session never searched takes no room in the index.
//
// Permissions: a file Open creates is readable and writable by its owner
// alone (0600), whatever the process's umask, and so are the -wal and -shm
// files beside it, to which SQLite gives the database file's mode: the file
// holds every message of every session, credentials a tool printed
// included. A file that exists already is opened as it is, its mode left
// to whoever created it (and its -wal and -shm files follow it): a host
// that wants the file shared by a group creates it so before Open.
//
// Durability: synchronous=NORMAL, which in WAL mode survives a crashed or
// killed process but may lose the last transactions on a power loss (never
// corrupting the file); see WithSynchronousFull.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/contextkit/compact/session/store"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is a store.Store in one SQLite file. It is safe for concurrent
// use, and several processes may open the same file at once.
type Store struct {
	w      *sql.DB // writes: one connection, IMMEDIATE transactions
	writes writes  // the writes waiting for it, batched (see write)
	r      *sql.DB // reads: a few connections, snapshots of the WAL
	path   string
	now    func() time.Time

	// The statements of an append, prepared once on the write connection:
	// preparing them anew would cost as much as running them.
	nextSeq, insertMessage *sql.Stmt
}

// Option configures a Store.
type Option func(*config)

type config struct {
	busyTimeout time.Duration
	readers     int
	syncFull    bool
}

// DefaultBusyTimeout is how long SQLite itself waits for another process's
// write to end before reporting the file busy (after which the Store goes
// on retrying until ctx is done).
const DefaultBusyTimeout = 5 * time.Second

// defaultReaders is the number of read connections per Store: reads run
// side by side in WAL mode, and a process rarely needs more at once.
const defaultReaders = 4

// WithBusyTimeout sets SQLite's busy timeout. Zero means DefaultBusyTimeout.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) { c.busyTimeout = d }
}

// WithSynchronousFull(true) makes every commit wait for the disk
// (synchronous=FULL), so that a power loss loses nothing committed, at the
// cost of an fsync per append. False, the default, is synchronous=NORMAL:
// a crash of the process loses nothing, a power loss may lose the last
// commits.
func WithSynchronousFull(on bool) Option {
	return func(c *config) { c.syncFull = on }
}

// Open opens (creating it if need be) the SQLite file at path and brings
// its schema up to date. The error names path but never more of the DSN.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := config{busyTimeout: DefaultBusyTimeout, readers: defaultReaders}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.busyTimeout <= 0 {
		cfg.busyTimeout = DefaultBusyTimeout
	}
	if path == "" {
		return nil, errors.New("sqlitestore: open: empty path")
	}
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	w, err := sql.Open("sqlite", dsn(path, cfg, "immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	r, err := sql.Open("sqlite", dsn(path, cfg, "deferred"))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("sqlitestore: open %s: %w", path, err), w.Close())
	}
	r.SetMaxOpenConns(cfg.readers)
	r.SetMaxIdleConns(cfg.readers)
	s := &Store{w: w, r: r, path: path, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlitestore: open %s: %w", path, err), s.Close())
	}
	if err := s.prepare(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlitestore: open %s: %w", path, err), s.Close())
	}
	return s, nil
}

// dsn builds the URI that opens path with the pragmas every connection
// needs, and txlock as the mode of its transactions.
func dsn(path string, cfg config, txlock string) string {
	q := url.Values{}
	sync := "NORMAL"
	if cfg.syncFull {
		sync = "FULL"
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", cfg.busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Set("_txlock", txlock)
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath(), RawQuery: q.Encode()}
	return u.String()
}

// prepare prepares the statements of an append.
func (s *Store) prepare(ctx context.Context) error {
	var err error
	prep := func(query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = s.w.PrepareContext(ctx, query)
		return st
	}
	s.nextSeq = prep(`INSERT INTO sessions (id, last_seq) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET last_seq = last_seq + excluded.last_seq
		RETURNING last_seq, compactions, deleted`)
	s.insertMessage = prep(`INSERT INTO messages (session, seq, at, body) VALUES (?, ?, ?, ?)`)
	return err
}

// Close closes the Store's connections.
func (s *Store) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.nextSeq, s.insertMessage} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, s.r.Close(), s.w.Close())...)
}

// Path returns the path the Store was opened with.
func (s *Store) Path() string { return s.path }

var (
	_ store.Store    = (*Store)(nil)
	_ store.Leaser   = (*Store)(nil)
	_ store.Searcher = (*Store)(nil)
	_ store.Spender  = (*Store)(nil)
)
