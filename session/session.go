package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/internal/trigger"
	"github.com/contextkit/compact/models"
	"github.com/contextkit/compact/session/store"
	"github.com/contextkit/compact/tokens"
)

// Session is one conversation: its live history, the engine that compacts
// it, and an id that nothing, compaction included, ever changes.
//
// A Session keeps three promises that a host juggling many agents would
// otherwise have to keep by hand:
//   - One compaction at a time. A second Compress waits for the first to end
//     (honouring its ctx), or with WithWait(false) returns an error wrapping
//     ErrBusy. Sessions share nothing, so different sessions never wait for
//     each other. With a Store that is a Leaser this holds across processes
//     and hosts: a compaction runs under the session's lease.
//   - Nothing said during a compaction is lost. Append never waits for a
//     compaction; messages appended while one runs (here, or on another
//     host sharing the Store) land after the compacted history, verbatim
//     and in the order they were appended, and the next Messages sees them.
//   - Nothing compacted is lost either. With a Store, every message is
//     logged as it is appended and a compaction never deletes from the log;
//     the history each compaction read stays addressable under
//     store.SnapshotID(id, n), and a snapshot is never promoted to the live id.
//
// With a Store, the Session holds this process's view of the live history:
// after every call that returns without error (Open, Append, Compress,
// Reset, Sync), Messages is the store's live history as it stood at some
// moment during that call, whatever other processes appended or compacted
// (or a request pruned to fit the window from it; see WithBackground).
// A call that fails may leave the view behind the store (ErrStale says so
// when the call's own write took effect), never ahead of it or apart from
// it; the next call that succeeds brings it up to date.
//
// Messages is the request the host sends, and each call counts as one
// request sent: the session paces background compaction by the calls (how
// fast the history grows between them, see Status().Pace) and takes the
// next usage report to describe the latest. Call it once per request; to
// read the session otherwise, Len, Tokens, Status and Tools count nothing.
//
// The Session logs "compaction started" and "compaction done" (or
// "compaction failed") itself, whatever the engine, each line with a
// "session" attribute fixed when the Session is opened. Give the logger to
// the Session; an engine given a logger too logs its own lines as well.
//
// A host deletes a conversation with Session.Delete (or Manager.Delete, or
// the package's Delete given the store and the id): the store removes it
// whole, and a Session elsewhere still holding it gets errors wrapping
// store.ErrDeleted from its next call that reaches the store. See "What the
// archive keeps, and for how long" in the package doc for retention and
// redaction at rest.
//
// The engine holds the per-conversation state (usage, compaction count,
// strikes, backoff), so each Session needs an engine of its own; a Manager
// builds one per session. All methods are safe for concurrent use.
type Session struct {
	id       string
	engine   compact.ContextEngine
	counter  tokens.Counter
	store    store.Store
	leaser   store.Leaser // store's, when it is one
	leaseTTL time.Duration
	log      *slog.Logger // carries the session attribute
	noWait   bool
	// recall offers the recall tools; toolBudget bounds their answers,
	// searchTimeout a search (SearchTimeout, shorter in tests).
	recall        bool
	toolBudget    int
	searchTimeout time.Duration
	redactAtRest  bool

	// slot holds a token while a compaction, a Reset or a Close runs: a
	// channel rather than a mutex so that waiting can honour a context.
	slot chan struct{}
	// order serialises, with a store, each write to the log with the update
	// of the view that follows it, so that the view keeps the log's order.
	// Taken before mu, never inside it.
	order sync.Mutex

	mu sync.Mutex
	// history is the live history (with a store, this process's view of
	// it). Its messages are private copies and are never modified once
	// appended: Append only appends, and compaction or Reset install a new
	// slice. So a prefix taken under mu can be read after mu is released.
	history []compact.Message
	tokens  int // the sum of counter.CountMessage over history
	// With a store, the view is derived from the store's log and its
	// compactions: history is the Live of compaction n (the whole log when
	// n is 0) followed by every record after that compaction's Through, up
	// to record seq. Append compares the two with what the store reports,
	// to notice what other processes did.
	seq          int64
	n            int
	folded       foldedOf // the range the summaries of a compaction stand for, when known
	compacting   bool
	closed       bool
	compactions  int
	lastSnapshot string
	// spent is what the session had been billed before this Session
	// opened it: the Spend of its latest compaction in the store.
	spent models.Spend
	// version grows with every change of history; installs with every
	// change that is not an append (a compaction, a reload, a Reset).
	version, installs uint64

	// The request and the compactions around it (see request.go,
	// background.go).
	now       func() time.Time
	bgOn      bool
	softMark  float64       // the host's soft mark, a fraction of the threshold; 0 adapts
	idleAfter time.Duration // the host's idle time; 0: the model's cache lifetime
	adjusted  []string      // options given an invalid value, and what was kept
	recallDef []openai.Tool // the recall tools' definitions, counted in every request
	req       requestState  // guarded by mu
	bg        *bgRun        // the background compaction running, nil when none; guarded by mu
	quiesce   int           // calls (Close, Reset) keeping background compactions from starting; guarded by mu
	figures   figures       // guarded by mu

	// onWait, when set (by tests), is called as a Compress starts waiting
	// for a running compaction.
	onWait func()
}

// Option configures a Session, or every Session a Manager opens.
type Option func(*config)

type config struct {
	store    store.Store
	logger   *slog.Logger
	noWait   bool
	counter  tokens.Counter
	leaseTTL time.Duration
	meta     compact.SessionMeta
	// recall and toolBudget: see WithRecall and WithToolBudget.
	recall     bool
	toolBudget int
	// redactAtRest: see WithRedactAtRest.
	redactAtRest bool
	// background compaction, idle compaction and the clock: see
	// background.go and idle.go.
	background bool
	softMark   float64
	idleAfter  time.Duration
	now        func() time.Time
	adjusted   []string
}

// reject records that option was given an invalid value, and what is kept.
func (c *config) reject(option string, value, kept any) {
	c.adjusted = append(c.adjusted, fmt.Sprintf("%s(%v): invalid, %v kept", option, value, kept))
}

// WithMeta tells the engine what the host knows of the conversation as it
// starts (its model, window, platform): an engine implementing
// compact.SessionHooks receives it in OnSessionStart. A Compressor moves to
// the model and window it names.
func WithMeta(meta compact.SessionMeta) Option {
	return func(c *config) { c.meta = meta }
}

// DefaultLeaseTTL is how long a compaction's lease lasts between renewals
// when WithLeaseTTL does not say: long enough that a busy store never makes
// a live holder lose it, short enough that a session whose compacting
// process died is compacted again within a minute.
const DefaultLeaseTTL = 30 * time.Second

// WithStore keeps the session in st: Open reads the live history from st,
// so a Session opened for an id the store knows carries on where it left
// off; every message Append is given is logged there before Append
// returns; and each compaction is committed there, so the conversation
// survives the process and can be shared by processes and hosts (see
// Store).
//
// Without a store nothing is persisted and nothing compacted is kept: the
// Session holds its live history in memory only.
func WithStore(st store.Store) Option {
	return func(c *config) { c.store = st }
}

// WithLeaseTTL sets how long the lease a compaction holds on a Leaser store
// lasts between renewals (the Session renews it every third of that while
// the engine runs): a process that dies mid-compaction holds the session up
// for at most this long. Zero means DefaultLeaseTTL.
func WithLeaseTTL(ttl time.Duration) Option {
	return func(c *config) { c.leaseTTL = ttl }
}

// WithLogger sets where the Session logs its compactions. The default
// discards. Every line carries a "session" attribute with the session's id.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithWait sets whether a Compress that finds a compaction of the same
// session running waits for it to end (true, the default) or returns at once
// with an error wrapping ErrBusy (false).
func WithWait(wait bool) Option {
	return func(c *config) { c.noWait = !wait }
}

// WithTokenCounter sets the counter behind Tokens. The default is the
// engine's own when it is a compact.CounterProvider (the Compressor is),
// so that Session and engine agree on sizes; tokens.Estimator otherwise.
func WithTokenCounter(tc tokens.Counter) Option {
	return func(c *config) { c.counter = tc }
}

// Open returns the session named id, compacted by engine, with its live
// history read from the store WithStore gives (empty without one, or for an
// id the store has never seen): a process that restarts carries on where
// the last one left off, and never sees an empty history in between. A nil
// engine means [compact.New] with its defaults. The id must be non-empty
// valid UTF-8 without control characters or SnapshotMarker; otherwise the
// error wraps ErrInvalidID. An error reading the store is returned as it
// is, wrapped, and no Session is returned. An engine that implements
// SessionHooks is told the session started.
func Open(ctx context.Context, id string, engine compact.ContextEngine, opts ...Option) (*Session, error) {
	if err := store.CheckID(id); err != nil {
		return nil, fmt.Errorf("session: open: %w", err)
	}
	var cfg config
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if engine == nil {
		engine = compact.New()
	}
	if cfg.counter == nil {
		if p, ok := engine.(compact.CounterProvider); ok {
			cfg.counter = p.Counter()
		}
	}
	if cfg.counter == nil {
		cfg.counter = tokens.Estimator{}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.leaseTTL <= 0 {
		cfg.leaseTTL = DefaultLeaseTTL
	}
	if cfg.recall && cfg.store == nil {
		cfg.store = store.NewMemory() // recall reads the log
	}
	// What a compaction folds stays recoverable: an engine may fold deeper.
	cfg.meta.Recall = cfg.meta.Recall || cfg.recall
	if cfg.toolBudget <= 0 {
		cfg.toolBudget = DefaultToolBudget
	}
	cfg.toolBudget = max(cfg.toolBudget, minToolBudget)
	if cfg.now == nil {
		cfg.now = time.Now
	}
	s := &Session{
		id: id, engine: engine, counter: cfg.counter, store: cfg.store, leaseTTL: cfg.leaseTTL,
		log: cfg.logger.With("session", id), noWait: cfg.noWait,
		recall: cfg.recall, toolBudget: cfg.toolBudget, searchTimeout: SearchTimeout,
		slot: make(chan struct{}, 1),
		now:  cfg.now, bgOn: cfg.background, softMark: cfg.softMark, idleAfter: cfg.idleAfter,
		adjusted: cfg.adjusted,
	}
	s.leaser, _ = cfg.store.(store.Leaser)
	if cfg.redactAtRest && cfg.store != nil {
		if _, ok := cfg.store.(store.Rewriter); !ok {
			return nil, fmt.Errorf("session: open %q: redaction at rest: %w: the store %T cannot rewrite records", id, errors.ErrUnsupported, cfg.store)
		}
		s.redactAtRest = true
	}
	if s.recall {
		s.recallDef = recallDefinitions()
	}
	s.req.lastActive = s.now()
	s.setTools(nil)
	if s.store != nil {
		if err := s.load(ctx); err != nil {
			return nil, fmt.Errorf("session: open %q: %w", id, err)
		}
		if sp, ok := s.store.(store.Spender); ok {
			spent, err := sp.Spend(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("session: open %q: reading what it was billed: %w", id, err)
			}
			s.spent = spent
		}
	}
	if h, ok := engine.(compact.SessionHooks); ok {
		h.OnSessionStart(id, cfg.meta)
	}
	s.refreshLimits()
	return s, nil
}

// ID returns the session's id. It never changes.
func (s *Session) ID() string { return s.id }

// Engine returns the session's engine, for its optional interfaces
// (ModelSwitcher, ToolProvider...).
func (s *Session) Engine() compact.ContextEngine { return s.engine }

// errorf wraps err from operation op on the session.
func (s *Session) errorf(op string, err error) error {
	return fmt.Errorf("session: %q: %s: %w", s.id, op, err)
}

// Append adds msgs, copied, to the end of the live history. It never waits
// for a running compaction: messages appended meanwhile land after the
// compacted history, in the order Append was called. Their cost is counted
// once, here.
//
// With a store, Append logs msgs there before it returns, and fails (with
// nothing recorded) when the store does. The store reports where the log
// and its compactions stand as it appends; when another process appended
// to or compacted the session since this one last looked, Append reads what
// changed, so that afterwards Messages is the store's live history. If that
// read fails, msgs are logged all the same and the error wraps ErrStale:
// do not append them again. Without a store Append never fails. On a closed
// session the messages are still recorded, but no longer compacted.
func (s *Session) Append(ctx context.Context, msgs ...compact.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	err := s.append(ctx, msgs)
	s.trigger()
	return err
}

// append is Append without the background compaction it may start.
func (s *Session) append(ctx context.Context, msgs []compact.Message) error {
	c := compact.Clone(msgs)
	n := s.sum(c)
	if s.store == nil {
		s.mu.Lock()
		s.history = append(s.history, c...)
		s.tokens += n
		s.version++
		s.mu.Unlock()
		return nil
	}
	s.order.Lock()
	defer s.order.Unlock()
	last, comps, err := s.store.Append(ctx, s.id, c...)
	if err != nil {
		return s.errorf("append", err)
	}
	s.mu.Lock()
	first := last - int64(len(c)) + 1
	current := first == s.seq+1 && comps == s.n
	if current {
		s.history = append(s.history, c...)
		s.tokens += n
		s.seq = last
		s.version++
	}
	behind := !current && comps == s.n && first > s.seq+1
	s.mu.Unlock()
	switch {
	case current:
		return nil
	case behind:
		// Others appended before these: read theirs, and these with them.
		err = s.catchUp(ctx, last)
	default:
		// Another process compacted: read the live history again.
		err = s.load(ctx)
	}
	if err != nil {
		s.log.Warn("bringing the view up to date after an append failed", errAttr(err))
		return s.errorf("append", fmt.Errorf("%w: the messages were logged, but reading what other processes wrote failed: %w", ErrStale, err))
	}
	return nil
}

// catchUp adds to the view the records after its last, through record
// last. The caller holds order, and the view's compaction is the store's.
func (s *Session) catchUp(ctx context.Context, last int64) error {
	s.mu.Lock()
	from := s.seq + 1
	s.mu.Unlock()
	recs, err := s.store.Read(ctx, s.id, from, last)
	if err != nil {
		return err
	}
	if int64(len(recs)) != last-from+1 {
		return fmt.Errorf("%w: reading records %d to %d gave %d", store.ErrCorrupt, from, last, len(recs))
	}
	msgs := make([]compact.Message, len(recs))
	for i, r := range recs {
		msgs[i] = r.Message
	}
	n := s.sum(msgs)
	s.mu.Lock()
	s.history = concat(s.history, msgs)
	s.tokens += n
	s.seq = last
	s.version++
	s.mu.Unlock()
	return nil
}

// Sync reads the live history from the store again, to see what other
// processes appended or compacted. Without a store it does nothing.
func (s *Session) Sync(ctx context.Context) error {
	if s.store == nil {
		return nil
	}
	s.order.Lock()
	defer s.order.Unlock()
	if err := s.load(ctx); err != nil {
		return s.errorf("sync", err)
	}
	return nil
}

// refresh is Sync at the cost of an empty Append when nothing changed (a
// request path at the hard limit asks at every request): it asks the store
// where the log and its compactions stand, reads only the records other
// processes appended when that is all they did, and the whole live history
// only when another process compacted.
func (s *Session) refresh(ctx context.Context) error {
	s.order.Lock()
	defer s.order.Unlock()
	last, n, err := s.store.Append(ctx, s.id)
	if err != nil {
		return s.errorf("sync", err)
	}
	s.mu.Lock()
	same := n == s.n && last == s.seq
	behind := n == s.n && last > s.seq
	s.mu.Unlock()
	switch {
	case same:
		return nil
	case behind:
		err = s.catchUp(ctx, last)
	default:
		err = s.load(ctx)
	}
	if err != nil {
		return s.errorf("sync", err)
	}
	return nil
}

// load reads the live history from the store and makes it the view. The
// caller holds order, or nothing else can reach s yet.
func (s *Session) load(ctx context.Context) error {
	live, through, n, err := s.store.Live(ctx, s.id)
	if err != nil {
		return fmt.Errorf("reading the live history: %w", err)
	}
	s.mu.Lock()
	same := n == s.n && through == s.seq && (n > 0 || through > 0)
	s.mu.Unlock()
	if !same {
		// The view is compaction n's Live and the records after it up to
		// through: the same n and through are the same view.
		s.install(live, through, n)
	}
	return nil
}

// install makes msgs, private copies, the view: the live history after
// compaction n, holding the log up to record through.
func (s *Session) install(msgs []compact.Message, through int64, n int) {
	tokens := s.sum(msgs)
	s.mu.Lock()
	s.history, s.tokens, s.seq, s.n = msgs, tokens, through, n
	s.installedLocked()
	s.mu.Unlock()
}

// Messages returns a copy of the next request: the live history, including
// every message appended so far, during a running compaction too (which
// has not replaced the history yet). One exception: with background
// compaction on, a request path that found the history over the hard
// limit while a compaction ran may have pruned it for the request instead
// of waiting (see WithBackground); Messages then returns that pruned
// request until the history next changes. The live history and the store
// are never pruned that way.
//
// Each call counts as a request: the session learns from the calls how
// fast its history grows (see Status().Pace), and when it was last active;
// and the next usage report (UpdateUsage) is taken to describe the request
// the last call handed out, as it counted it, sent when it was handed out.
// With background compaction on, the call is also the engine's check of
// that request (ShouldCompress with its count), as the host's check is
// without it.
func (s *Session) Messages() []compact.Message {
	now := s.now()
	s.mu.Lock()
	h, n := s.requestLocked(), s.nextTokensLocked()
	s.req.measure.Counts(n)
	s.req.pace.observe(now, s.requestTokensLocked(nil), s.installs)
	s.req.lastActive, s.req.sentAt = now, now
	s.mu.Unlock()
	if s.bgOn && n > 0 {
		s.engine.ShouldCompress(n)
	}
	return compact.Clone(h)
}

// liveHistory returns a copy of the live history, without counting a
// request.
func (s *Session) liveHistory() []compact.Message {
	s.mu.Lock()
	h := s.history
	s.mu.Unlock()
	return compact.Clone(h)
}

// Len returns the number of messages in the live history.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.history)
}

// Tokens returns the tokens the live history takes as a request, as
// CountMessages counts it with the session's counter. It is a running count,
// so it costs nothing however long the history is. Tool definitions are not
// in it: Status().RequestTokens adds them.
func (s *Session) Tokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.totalLocked()
}

func (s *Session) totalLocked() int {
	if len(s.history) == 0 {
		return 0
	}
	return s.tokens + tokens.ReplyPrimingTokens
}

// ShouldCompress reports whether the next request must be compacted before
// it is sent. The request is the live history, the tool definitions it
// carries and an incoming message: opts may name the tools (see
// compact.WithTools; the session remembers them for later calls and for
// its background compaction) and the incoming message (compact.WithIncoming),
// and a session opened WithRecall counts its own recall tools whether the
// host names them or not. Other options are ignored.
//
// Without background compaction it asks the engine; it is false while a
// compaction of this session is running (that compaction will shrink the
// history; asking for another would only queue a second one behind it).
// With background compaction on (WithBackground), it starts one when the
// request has passed the soft mark, and reports true only when the request
// is over the hard limit, the engine's usable window: Compress then brings
// it under. It is false once the session is closed.
func (s *Session) ShouldCompress(opts ...compact.CompressOption) bool {
	o := compact.ApplyCompressOptions(opts...)
	s.setTools(o.Tools)
	if s.bgOn {
		s.refreshLimits()
		s.trigger()
		return s.overLimit(o.Incoming)
	}
	s.mu.Lock()
	busy := s.compacting || s.closed
	tokens := s.requestTokensLocked(o.Incoming)
	s.mu.Unlock()
	return !busy && s.engine.ShouldCompress(tokens)
}

// UpdateUsage passes the usage a provider reported on to the engine, and
// marks the session active, for CompressIfIdle.
//
// The session takes the report to describe the request Messages last
// handed out, and compares it with its own count of that request, as a
// Compressor does (docs/engine.md, Usage reports): the difference (tool
// definitions the host did not name, images, the provider's framing) is
// what its count misses, and every later judgement of a request's size
// adds it: the soft mark and the hard limit of background compaction, the
// idle mark, and Status().RequestTokens. A report when no request was
// handed out since the last one is the least the next request takes,
// until a compaction, unless its Usage.At is before the last compaction
// was installed. With background compaction on, a report past the soft
// mark starts the compaction at once.
//
// A report with no Usage.At reaches the engine with At set to when
// Messages handed its request out, so the engine knows a request that
// was out while a compaction committed (a background one, say): its
// report judges no compaction (see compact.Compressor.UpdateUsage).
func (s *Session) UpdateUsage(u compact.Usage) {
	now := s.now()
	s.mu.Lock()
	s.req.lastActive = now
	if u.PromptTokens > 0 {
		counted := s.req.measure.Counted()
		if counted > 0 && u.At.IsZero() {
			u.At = s.req.sentAt
		}
		if counted > 0 || u.At.IsZero() || !u.At.Before(s.req.installedAt) {
			s.req.measure.Learn(u.PromptTokens, counted)
		}
	}
	s.mu.Unlock()
	s.engine.UpdateUsage(u)
	s.trigger()
}

// Reset clears the live history so the conversation starts over under the
// same id: it waits for a running compaction to end (or ctx to be done),
// and tells an engine that implements SessionHooks. With a store, it
// commits a compaction with an empty Live (Summarizer store.ResetSummarizer), so
// the log keeps every message and the history before the reset stays
// addressable as a snapshot; messages another process appends meanwhile
// stay live. If the store refuses, nothing is cleared; an error wrapping
// ErrStale means the reset was committed (and the engine told) but the
// messages other processes appended meanwhile could not be read yet.
func (s *Session) Reset(ctx context.Context) error {
	_, resume := s.stopBackground()
	defer resume()
	if err := s.acquire(ctx, false); err != nil {
		return err
	}
	defer s.release()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return s.errorf("reset", ErrClosed)
	}
	var err error
	if s.store == nil {
		s.mu.Lock()
		s.history, s.tokens = nil, 0
		s.installedLocked()
		s.mu.Unlock()
	} else {
		_, _, err = s.compactStored(ctx, "reset", kindReset, func(context.Context, []compact.Message) (*compact.Result, error) {
			return &compact.Result{Summarizer: store.ResetSummarizer}, nil
		})
		if err != nil && !errors.Is(err, ErrStale) {
			return err
		}
	}
	if h, ok := s.engine.(compact.SessionHooks); ok {
		h.OnSessionReset(s.id)
	}
	s.mu.Lock()
	s.req.measure = trigger.Measure{} // the conversation starts over, as the engine's state does
	s.mu.Unlock()
	return err
}

// Close ends the session: it cancels a background compaction (nothing is
// lost: the history stays as it was), waits for a running compaction to end
// (or ctx to be done) and tells an engine that implements SessionHooks.
// Once Close returns without error no goroutine of the session is left.
// Everything appended is already in the store, if there is one. Closing a
// closed session does nothing. After Close, Compress and Reset return an
// error wrapping ErrClosed. If ctx ends first, Close returns its error and
// the session stays open.
func (s *Session) Close(ctx context.Context) error {
	run, resume := s.stopBackground()
	defer resume()
	if err := s.acquire(ctx, false); err != nil {
		return err
	}
	defer s.release()
	if run != nil {
		// It gave the slot back; it ends as soon as it has said so.
		select {
		case <-run.done:
		case <-ctx.Done():
			return s.errorf("close", ctx.Err())
		}
	}
	s.mu.Lock()
	closed := s.closed
	s.closed = true
	s.mu.Unlock()
	if closed {
		return nil
	}
	if h, ok := s.engine.(compact.SessionHooks); ok {
		h.OnSessionEnd(s.id, s.liveHistory())
	}
	return nil
}

// acquire takes the session's slot, waiting for a running compaction unless
// noWait is set.
func (s *Session) acquire(ctx context.Context, noWait bool) error {
	_, err := s.acquireWaited(ctx, noWait)
	return err
}

// acquireWaited is acquire, and reports whether it waited for the slot.
func (s *Session) acquireWaited(ctx context.Context, noWait bool) (bool, error) {
	select {
	case s.slot <- struct{}{}:
		return false, nil
	default:
	}
	if noWait {
		return false, fmt.Errorf("session: %q: %w", s.id, ErrBusy)
	}
	s.log.Debug("compaction waiting", "for", "the running compaction of this session")
	if s.onWait != nil {
		s.onWait()
	}
	defer s.blocked()()
	select {
	case s.slot <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return true, s.errorf("waiting for a running compaction", ctx.Err())
	}
}

// blocked counts a caller blocked on a compaction until the function it
// returns is called (see requestState.waiting).
func (s *Session) blocked() func() {
	s.mu.Lock()
	s.req.waiting++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.req.waiting--
		s.mu.Unlock()
	}
}

func (s *Session) release() { <-s.slot }

// spending is what the session has been billed so far: what it had been
// before this Session opened it, and what the engine counted since.
func (s *Session) spending() models.Spend {
	st := s.engine.Status()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spent.Add(st.Cost)
}
