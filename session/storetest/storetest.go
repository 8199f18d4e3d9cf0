// Package storetest checks that a store.Store keeps the contract written
// on that interface, and on store.Leaser, store.Searcher,
// store.Spender, store.Deleter, store.Expirer and store.Rewriter
// when the store is one.
//
// A store proves itself with one call in its tests:
//
//	func TestMyStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			return mystore.Open(t.TempDir())
//		})
//	}
//
// Each rule is a subtest named after it, and a failure says which rule was
// broken and why it matters. newStore may return a new store for every rule
// or the same one each time: every rule works on session ids of its own,
// made unique per run, so a shared database needs no cleaning between runs.
// The lease rules sleep past short leases, so the suite takes a few
// seconds.
//
// Audit checks what a store holds rather than how it behaves: that every
// compaction of a session accounts, from the store alone, for every record
// it covers.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/contextkit/compact"
	"github.com/contextkit/compact/session/store"
)

// rule is one contract of a Store, checked on a fresh session id.
type rule struct {
	name        string
	explanation string
	// leaser, searcher, spender, deleter, expirer and rewriter mark rules
	// that apply only to a store that is one.
	leaser, searcher, spender, deleter, expirer, rewriter bool
	check                                                 func(ctx context.Context, st store.Store, id string) error
}

// Run runs every rule as a subtest of t, each on a store newStore returns.
// Rules for store.Leaser, store.Searcher and store.Spender are
// skipped, with a reason, for a store that is not one.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	run := randomTag()
	for _, r := range rules() {
		t.Run(r.name, func(t *testing.T) {
			st := newStore(t)
			if missing := r.missing(st); missing != "" {
				t.Skipf("%T is not a %s", st, missing)
			}
			id := fmt.Sprintf("storetest-%s-%s", run, r.name)
			if err := r.check(context.Background(), st, id); err != nil {
				t.Errorf("%s\nrule: %s", err, r.explanation)
			}
		})
	}
}

// rules returns every rule, in the order a reader meets the contract.
func rules() []rule {
	var all []rule
	for _, group := range [][]rule{logRules, idRules, compactionRules, leaseRules, searchRules, sessionRules, lifecycleRules} {
		all = append(all, group...)
	}
	return all
}

// Check runs every rule on st, outside a test, and returns the broken ones
// joined, each naming its rule and why it matters; nil when st keeps them
// all. Rules that st's optional interfaces do not cover are skipped.
func Check(ctx context.Context, st store.Store) error {
	run := randomTag()
	var errs []error
	for _, r := range rules() {
		if r.missing(st) != "" {
			continue
		}
		if err := r.check(ctx, st, fmt.Sprintf("storetest-%s-%s", run, r.name)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (rule: %s)", r.name, err, r.explanation))
		}
	}
	return errors.Join(errs...)
}

// missing names the optional interface r applies to that st is not, or
// returns "".
func (r rule) missing(st store.Store) string {
	for _, need := range []struct {
		want bool
		ok   bool
		name string
	}{
		{r.leaser, is[store.Leaser](st), "store.Leaser"},
		{r.searcher, is[store.Searcher](st), "store.Searcher"},
		{r.spender, is[store.Spender](st), "store.Spender"},
		{r.deleter, is[store.Deleter](st), "store.Deleter"},
		{r.expirer, is[store.Expirer](st), "store.Expirer"},
		{r.rewriter, is[store.Rewriter](st), "store.Rewriter"},
	} {
		if need.want && !need.ok {
			return need.name
		}
	}
	return ""
}

// is reports whether st implements T.
func is[T any](st store.Store) bool {
	_, ok := st.(T)
	return ok
}

// randomTag makes ids of one run unlike those of any other.
func randomTag() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sameMessages reports how got differs from want, message by message (see
// sameMessage).
func sameMessages(what string, want, got []compact.Message) error {
	if len(want) != len(got) {
		return fmt.Errorf("%s: %d messages, want %d", what, len(got), len(want))
	}
	for i := range want {
		if err := sameMessage(want[i], got[i]); err != nil {
			return fmt.Errorf("%s: message %d: %w", what, i, err)
		}
	}
	return nil
}

// sameMessage reports how got differs from want: every string byte for
// byte, then their JSON, which is what a message means to a provider (a
// store may bring back an empty slice as nil).
func sameMessage(want, got compact.Message) error {
	ws, gs := map[string]string{}, map[string]string{}
	strs(reflect.ValueOf(want), "Message", ws)
	strs(reflect.ValueOf(got), "Message", gs)
	paths := make([]string, 0, len(ws)+len(gs))
	for p := range ws {
		paths = append(paths, p)
	}
	for p := range gs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if w, g := ws[p], gs[p]; w != g {
			at := 0
			for at < len(w) && at < len(g) && w[at] == g[at] {
				at++
			}
			return fmt.Errorf("%s differs from byte %d: %q, want %q", p, at, clip(g, at), clip(w, at))
		}
	}
	w, err := json.Marshal(want)
	if err != nil {
		return err
	}
	g, err := json.Marshal(got)
	if err != nil {
		return err
	}
	if string(w) != string(g) {
		return fmt.Errorf("got %s, want %s", g, w)
	}
	return nil
}

// clip is up to 60 bytes of s from at.
func clip(s string, at int) string {
	return s[at:min(len(s), at+60)]
}

// strs records every non-empty string reachable from v, through structs,
// slices and pointers, under its path.
func strs(v reflect.Value, path string, out map[string]string) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			out[path] = v.String()
		}
	case reflect.Pointer:
		if !v.IsNil() {
			strs(v.Elem(), path, out)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			strs(v.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				strs(v.Field(i), path+"."+f.Name, out)
			}
		}
	}
}

// messages returns the messages of recs.
func messages(recs []store.Record) []compact.Message {
	out := make([]compact.Message, len(recs))
	for i, r := range recs {
		out[i] = r.Message
	}
	return out
}

// text makes n plain user messages labelled label.
func text(label string, n int) []compact.Message {
	out := make([]compact.Message, n)
	for i := range out {
		out[i] = compact.Message{Role: compact.RoleUser, Content: fmt.Sprintf("%s %d", label, i+1)}
	}
	return out
}

// appendAll appends msgs to id, failing on an error.
func appendAll(ctx context.Context, st store.Store, id string, msgs ...compact.Message) (int64, error) {
	last, _, err := st.Append(ctx, id, msgs...)
	if err != nil {
		return 0, fmt.Errorf("store.Append: %w", err)
	}
	return last, nil
}
