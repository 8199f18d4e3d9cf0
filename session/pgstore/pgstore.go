// Package pgstore keeps sessions in Postgres: a store.Store, a
// store.Leaser and a store.Searcher on github.com/jackc/pgx/v5, for
// hosts that share one database, so that any replica of a gateway can serve
// any conversation and each conversation compacts in one place at a time.
//
//	st, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"))
//	if err != nil { ... }
//	defer st.Close()
//	m := session.NewManager(newEngine, session.WithStore(st))
//
// The tables live in their own schema (default "compact"), created and
// migrated by Open under an advisory lock, so replicas starting together
// migrate once. Appends are one statement each; a session's lease is a row
// with a fencing token that only grows, timed by the database's clock, so
// hosts whose clocks differ still agree on who holds it. Messages are kept
// as JSON in text columns, byte for byte: NUL bytes and text that is not
// UTF-8, which a Postgres text column cannot hold, are escaped in the JSON
// and come back as they went in. Errors never hold the DSN or its password.
//
// Searches look a text up in a table of each record's text, lower-cased,
// a long text in overlapping pieces of 4 KiB, through a GIN index of
// pg_trgm, and check every candidate exactly. The
// table is filled session by session by searches, not by appends: a
// session's first search puts its records in, and later ones what was
// appended since (when more than a few hundred records wait; fewer are
// read from the log), so an append writes its messages and its session's
// counter, nothing more, and a session never searched takes no room in the
// table. Open creates
// the extension when the database lacks it (pg_trgm ships with Postgres
// and is trusted since Postgres 13: a role that may create the Store's
// schema may create it). On a server without pg_trgm, Open says so
// through WithLogger's logger and leaves the index out: searches then read
// the session's texts, with the same answers, more slowly on a long
// session; to add the index later (the Store's schema for compact):
//
//	CREATE EXTENSION pg_trgm;
//	CREATE INDEX CONCURRENTLY message_search_trgm ON compact.message_search USING gin (search gin_trgm_ops);
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/contextkit/compact/session/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is a store.Store in a Postgres database. It is safe for
// concurrent use; any number of processes and hosts may share the database.
type Store struct {
	pool *pgxpool.Pool
	q    queries
	log  *slog.Logger
}

// Option configures a Store.
type Option func(*config)

type config struct {
	schema   string
	logger   *slog.Logger
	trigrams string // the extension migration 4 builds its index with; tests name a missing one
}

// defaultMaxConns is the least the pool may open unless the DSN's
// pool_max_conns says otherwise (see Open).
const defaultMaxConns = 8

// DefaultSchema is the schema that holds the Store's tables unless
// WithSchema says otherwise.
const DefaultSchema = "compact"

// WithSchema keeps the tables in the named schema, created if need be: two
// applications (or two test runs) sharing a database can keep apart.
func WithSchema(name string) Option {
	return func(c *config) { c.schema = name }
}

// WithLogger sends what the Store has to say to l: today, only that Open
// found no pg_trgm to build the search index with. Nil, the default,
// discards it.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// ErrDSN reports a DSN that does not parse. The error says why without
// repeating the DSN, which holds the password.
var ErrDSN = errors.New("pgstore: invalid DSN")

// ErrConnect reports a database Open could not reach or log in to. The
// error names the host but never the password.
var ErrConnect = errors.New("pgstore: cannot connect")

// Open connects to the database dsn names (a postgres:// URL or key=value
// pairs, as pgx takes them), checks the connection, and creates or migrates
// the Store's tables.
//
// The pool opens at most the DSN's pool_max_conns connections, as they are
// needed; a DSN without one gets the larger of 8 and the number of CPUs: a
// process serving a few hundred sessions, whose compactions hold
// connections too, keeps Append's tail at a bare insert's with 8, and
// doubles it with pgxpool's own 4 (docs/sizing.md).
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	cfg := config{schema: DefaultSchema, trigrams: "pg_trgm"}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.schema == "" {
		cfg.schema = DefaultSchema
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	secrets := secretsOf(dsn)
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrDSN, scrub(reason(err), secrets))
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		pcfg.MaxConns = max(pcfg.MaxConns, defaultMaxConns)
	}
	secrets = append(secrets, pcfg.ConnConfig.Password)
	where := fmt.Sprintf("%s@%s:%d/%s", pcfg.ConnConfig.User, pcfg.ConnConfig.Host, pcfg.ConnConfig.Port, pcfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, connectError(ctx, where, err, secrets)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, connectError(ctx, where, err, secrets)
	}
	s := &Store{pool: pool, q: newQueries(pgx.Identifier{cfg.schema}.Sanitize()), log: cfg.logger}
	if err := s.migrate(ctx, cfg); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: open %s: %w", where, err) // no DSN in it
	}
	return s, nil
}

// Close closes the pool, waiting for connections in use to be returned.
// Closing a closed Store does nothing. The error is nil: Close returns one
// so that a Store is an io.Closer, as sqlitestore's is.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// connectError reports a failed connection to where without a secret; it
// wraps ctx's error when ctx is done, ErrConnect otherwise.
func connectError(ctx context.Context, where string, err error, secrets []string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("pgstore: connecting to %s: %w", where, ctx.Err())
	}
	return fmt.Errorf("%w to %s: %s", ErrConnect, where, scrub(err.Error(), secrets))
}

// reason is why pgx refused a DSN, without the DSN (which pgx's message
// quotes, password redacted).
func reason(err error) string {
	if inner := errors.Unwrap(err); inner != nil {
		return inner.Error()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		return msg[i+3:]
	}
	return "it does not parse"
}

// keyValuePassword finds a password in key=value DSNs, quoted or not.
var keyValuePassword = regexp.MustCompile(`password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// secretsOf finds what in dsn must never be printed, even when it does not
// parse: a URL's password (raw and unescaped) and key=value passwords.
func secretsOf(dsn string) []string {
	var out []string
	if i := strings.Index(dsn, "://"); i >= 0 {
		rest := dsn[i+3:]
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
				out = append(out, pw)
				if u, err := url.PathUnescape(pw); err == nil {
					out = append(out, u)
				}
			}
		}
	}
	for _, m := range keyValuePassword.FindAllStringSubmatch(dsn, -1) {
		out = append(out, m[1], strings.Trim(m[1], "'"))
	}
	return out
}

// scrub replaces every secret in msg.
func scrub(msg string, secrets []string) string {
	for _, s := range secrets {
		if len(s) > 0 {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Leaser   = (*Store)(nil)
	_ store.Searcher = (*Store)(nil)
	_ store.Spender  = (*Store)(nil)
)
