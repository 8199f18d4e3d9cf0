package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/contextkit/compact/session/pgstore"
	"github.com/contextkit/compact/session/sqlitestore"
	"github.com/contextkit/compact/session/store"
)

const storeUsage = `usage: compact store expire [-folded AGE] [-idle AGE] [-prefix P] [-vacuum] [-schema S] STORE
       compact store delete [-schema S] STORE SESSION ...
       compact store redact [-schema S] STORE SESSION ...

Runs a session store's lifecycle against STORE: a SQLite file a session
store wrote (sqlitestore), or a Postgres DSN (postgres:// or
postgresql://, pgstore, in the schema -schema names). The command never
creates a store: a path that is not such a file, or a schema that holds
no store, is refused before anything is written.

  expire  deletes the archived records a compaction folded that are older
          than -folded, and the whole sessions idle longer than -idle
          (store.Expirer); -vacuum then gives a SQLite file's freed
          pages back to the file system.
  delete  deletes each SESSION whole (store.Delete), waiting for a
          compaction in flight to end.
  redact  rewrites the folded records of each SESSION through package
          redact (store.RedactFolded).

AGE is a Go duration (36h) or a number of days (30d).

Exit status: 0 when done, 1 when the store failed, 2 on a command line
that cannot run.
`

// storeOptions are the store subcommand's command line.
type storeOptions struct {
	op             string
	folded, idle   time.Duration
	prefix, schema string
	vacuum         bool
	target         string
	sessions       []string
}

// ageValue is a flag holding an age: a Go duration or a number of days.
type ageValue struct{ d *time.Duration }

func (a ageValue) String() string {
	if a.d == nil || *a.d == 0 {
		return ""
	}
	return a.d.String()
}

func (a ageValue) Set(s string) error {
	d, err := parseAge(s)
	if err != nil {
		return err
	}
	*a.d = d
	return nil
}

// parseAge reads "30d" or a Go duration; an age must be positive.
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n <= 0 || n > 100*365 {
			return 0, fmt.Errorf("%q is not a number of days from 0 to 36500", s)
		}
		d = time.Duration(n * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%q is neither a duration (36h) nor a number of days (30d)", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not a positive age", s)
	}
	return d, nil
}

// parseStoreArgs parses the store subcommand's args.
func parseStoreArgs(args []string, stderr io.Writer) (*storeOptions, error) {
	o := &storeOptions{}
	fs := commandFlagSet("compact store", storeUsage, stderr)
	fs.Var(ageValue{&o.folded}, "folded", "expire: delete folded records older than this `AGE`")
	fs.Var(ageValue{&o.idle}, "idle", "expire: delete sessions idle longer than this `AGE`")
	fs.StringVar(&o.prefix, "prefix", "", "expire: only the sessions whose id starts with this")
	fs.BoolVar(&o.vacuum, "vacuum", false, "expire: VACUUM a SQLite file afterwards")
	fs.StringVar(&o.schema, "schema", pgstore.DefaultSchema, "the Postgres schema that holds the store")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fs.Usage()
			return nil, flag.ErrHelp
		}
		say(stderr, "compact store: name an operation: expire, delete or redact (compact store -h)\n")
		return nil, errUsage
	}
	o.op = args[0]
	if err := parseInterspersed(fs, args[1:], &o.sessions); err != nil {
		return nil, err
	}
	fail := func(format string, a ...any) (*storeOptions, error) {
		say(stderr, "compact store %s: "+format+" (compact store -h)\n", append([]any{o.op}, a...)...)
		return nil, errUsage
	}
	if len(o.sessions) == 0 {
		return fail("name the STORE")
	}
	o.target, o.sessions = o.sessions[0], o.sessions[1:]
	switch o.op {
	case "expire":
		if o.folded == 0 && o.idle == 0 {
			return fail("give -folded, -idle or both: an expire with neither deletes nothing")
		}
		if len(o.sessions) > 0 {
			return fail("takes one STORE and no session (use -prefix); got %q too", o.sessions)
		}
		if o.vacuum && isPostgres(o.target) {
			return fail("-vacuum is for a SQLite file; Postgres's autovacuum reclaims the space")
		}
	case "delete", "redact":
		if len(o.sessions) == 0 {
			return fail("name at least one SESSION after the STORE")
		}
		for _, id := range o.sessions {
			if err := store.CheckID(id); err != nil {
				return fail("session %q: %v", id, err)
			}
		}
		if o.folded != 0 || o.idle != 0 || o.prefix != "" || o.vacuum {
			return fail("-folded, -idle, -prefix and -vacuum are expire's")
		}
	default:
		return fail("unknown operation; the operations are expire, delete and redact")
	}
	return o, nil
}

// parseInterspersed parses fs's flags wherever they are among args and
// puts the other arguments in rest; "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string, rest *[]string) error {
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) == 0 {
			return nil
		}
		if args[0] == "--" {
			*rest = append(*rest, args[1:]...)
			return nil
		}
		*rest = append(*rest, args[0])
		args = args[1:]
	}
}

// isPostgres reports whether target is a Postgres DSN rather than a path.
func isPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// storeCommand runs "compact store".
func (c *cli) storeCommand(ctx context.Context, args []string) int {
	o, err := parseStoreArgs(args, c.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	st, closeStore, err := openExistingStore(ctx, o)
	if err != nil {
		say(c.stderr, "compact store %s: %s\n", o.op, errText(err))
		if errors.Is(err, errNotAStore) {
			return exitUsage
		}
		return exitError
	}
	defer closeStore()
	if err := c.runStore(ctx, o, st); err != nil {
		say(c.stderr, "compact store %s: %s\n", o.op, errText(err))
		return exitError
	}
	return exitOK
}

// runStore runs o's operation on st.
func (c *cli) runStore(ctx context.Context, o *storeOptions, st store.Store) error {
	switch o.op {
	case "expire":
		e, ok := st.(store.Expirer)
		if !ok {
			return fmt.Errorf("%T cannot expire", st)
		}
		got, err := e.Expire(ctx, store.Retention{Folded: o.folded, Idle: o.idle, Prefix: o.prefix})
		say(c.stdout, "expired %d folded records and %d idle sessions\n", got.Records, got.Sessions)
		if err != nil {
			return err
		}
		if v, ok := st.(*sqlitestore.Store); ok && o.vacuum {
			if err := v.Vacuum(ctx); err != nil {
				return err
			}
			say(c.stdout, "vacuumed %s\n", o.target)
		}
	case "delete":
		for _, id := range o.sessions {
			if err := store.Delete(ctx, st, id); err != nil {
				return err
			}
			say(c.stdout, "deleted session %q\n", id)
		}
	case "redact":
		for _, id := range o.sessions {
			n, err := store.RedactFolded(ctx, st, id)
			if err != nil {
				return err
			}
			say(c.stdout, "redacted %d folded records of session %q\n", n, id)
		}
	}
	return nil
}

// errNotAStore marks a STORE that is no session store: nothing was opened.
var errNotAStore = errors.New("not a session store")

// sqliteHeader opens every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// openExistingStore opens o.target as a store only once it is sure one is
// there, so that a mistyped path or schema is refused, not created.
func openExistingStore(ctx context.Context, o *storeOptions) (store.Store, func(), error) {
	if isPostgres(o.target) {
		if err := postgresHasStore(ctx, o.target, o.schema); err != nil {
			return nil, nil, err
		}
		st, err := pgstore.Open(ctx, o.target, pgstore.WithSchema(o.schema))
		if err != nil {
			return nil, nil, err
		}
		return st, func() { _ = st.Close() }, nil
	}
	if err := sqliteHasStore(ctx, o.target); err != nil {
		return nil, nil, err
	}
	st, err := sqlitestore.Open(ctx, o.target)
	if err != nil {
		return nil, nil, err
	}
	return st, func() { _ = st.Close() }, nil
}

// sqliteHasStore checks that path is a regular file holding a SQLite
// database with a session store's tables, reading it only.
func sqliteHasStore(ctx context.Context, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errNotAStore, path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", errNotAStore, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotAStore, err)
	}
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	_ = f.Close()
	if err != nil || !bytes.Equal(head, []byte(sqliteHeader)) {
		return fmt.Errorf("%w: %s is not a SQLite database", errNotAStore, path)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errNotAStore, path, err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master
		WHERE type = 'table' AND name IN ('schema_version', 'sessions', 'messages', 'compactions')`).Scan(&n); err != nil {
		return fmt.Errorf("%w: %s: %w", errNotAStore, path, err)
	}
	if n != 4 {
		return fmt.Errorf("%w: %s is a SQLite database without a session store's tables", errNotAStore, path)
	}
	return nil
}

// postgresHasStore checks that schema holds a session store's tables in
// the database dsn names, reading only.
func postgresHasStore(ctx context.Context, dsn, schema string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("%w: the DSN does not parse", errNotAStore)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connecting to %s@%s:%d/%s: %w", cfg.User, cfg.Host, cfg.Port, cfg.Database, pgconnReason(err))
	}
	defer conn.Close(ctx)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL`,
		pgx.Identifier{schema, "schema_version"}.Sanitize(), pgx.Identifier{schema, "sessions"}.Sanitize()).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: schema %q of %s holds no session store", errNotAStore, schema, cfg.Database)
	}
	return nil
}

// pgconnReason is err without what might quote the DSN.
func pgconnReason(err error) error {
	return errors.New(strings.ReplaceAll(err.Error(), "\n", " "))
}
