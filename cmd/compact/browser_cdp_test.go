package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A headless Chromium driven over the DevTools protocol through
// --remote-debugging-pipe: the browser reads commands from its fd 3 and
// writes replies and events to its fd 4, each a JSON object ended by a NUL
// byte. No network port, no WebSocket, no dependency.

// browserEnv names the variable that makes a missing browser a test
// failure (CI sets it) instead of a skip.
const browserEnv = "COMPACT_REQUIRE_BROWSER"

// browserFlags are those that work on this project's machines: as root
// (no sandbox), without a GPU, and without the background connections a
// closed network refuses.
var browserFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-extensions", "--no-proxy-server", "--hide-scrollbars", "--mute-audio",
	"--remote-debugging-pipe", "--window-size=1400,1000",
}

// findBrowser returns a Chromium binary, or skips t with one line (fails it
// when browserEnv=1).
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("COMPACT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no Chromium on PATH (apt-get install chromium)"
	require.NotEqual(t, "1", os.Getenv(browserEnv), why+"; "+browserEnv+"=1 requires it")
	t.Skip(why)
	return ""
}

// cdpMessage is a command, a reply or an event.
type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// event is one event the browser sent, with its raw parameters.
type event struct {
	Method string
	Params json.RawMessage
}

// browser is a running Chromium and its protocol pipe.
type browser struct {
	cmd     *exec.Cmd
	send    *os.File
	mu      sync.Mutex
	next    int64
	waiting map[int64]chan cdpMessage
	events  chan event
	done    chan struct{} // closed when the reader stops
}

// startBrowser starts Chromium at path with a fresh profile.
func startBrowser(t *testing.T, path string) *browser {
	t.Helper()
	toBrowser, send, err := os.Pipe()
	require.NoError(t, err)
	recv, fromBrowser, err := os.Pipe()
	require.NoError(t, err)
	args := append(append([]string(nil), browserFlags...), "--user-data-dir="+t.TempDir(), "about:blank")
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3 and fd 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	// The browser holds its own copies now.
	_ = toBrowser.Close()
	_ = fromBrowser.Close()
	b := &browser{cmd: cmd, send: send, waiting: map[int64]chan cdpMessage{}, events: make(chan event, 1024), done: make(chan struct{})}
	go b.read(recv)
	t.Cleanup(func() {
		b.close()
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("browser's standard error (last 2 KB): %s", tail(stderr.String(), 2048))
		}
	})
	return b
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// read dispatches what the browser writes until the pipe closes.
func (b *browser) read(recv *os.File) {
	defer close(b.done)
	defer recv.Close()
	r := bufio.NewReaderSize(recv, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		var ev struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(raw[:len(raw)-1], &ev) == nil {
			select {
			case b.events <- event{Method: ev.Method, Params: ev.Params}:
			default: // a flood of events nobody reads is dropped
			}
		}
	}
}

// call sends a command (to session, "" for the browser) and decodes its
// result into out (nil to ignore it).
func (b *browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	data, err := json.Marshal(cdpMessage{ID: id, Method: method, Params: params, SessionID: session})
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: the browser closed its pipe", method)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// close asks the browser to quit, kills it if it will not, and waits for
// the reader to stop.
func (b *browser) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	_ = b.send.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-exited
	}
	<-b.done
}

// tab is one page of the browser, attached in flat mode.
type tab struct {
	b       *browser
	session string
}

// openTab creates a blank page and enables the domains the checks read.
func (b *browser) openTab(ctx context.Context) (*tab, error) {
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	tb := &tab{b: b, session: attached.SessionID}
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := tb.call(ctx, domain, nil, nil); err != nil {
			return nil, err
		}
	}
	return tb, nil
}

func (tb *tab) call(ctx context.Context, method string, params, out any) error {
	return tb.b.call(ctx, tb.session, method, params, out)
}

// load navigates to url and waits for its load event, returning every
// console error, uncaught exception and error log entry seen until then
// and shortly after.
func (tb *tab) load(ctx context.Context, url string) ([]string, error) {
	if err := tb.call(ctx, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return nil, err
	}
	var errs []string
	loaded := false
	settle := time.NewTimer(time.Hour)
	defer settle.Stop()
	for {
		select {
		case ev := <-tb.b.events:
			if msg := errorIn(ev); msg != "" {
				errs = append(errs, msg)
			}
			if ev.Method == "Page.loadEventFired" && !loaded {
				loaded = true
				// Errors a load provokes (a blocked resource, a late
				// script) arrive just after it.
				settle.Reset(300 * time.Millisecond)
			}
		case <-settle.C:
			return errs, nil
		case <-tb.b.done:
			return errs, errors.New("the browser closed its pipe")
		case <-ctx.Done():
			return errs, ctx.Err()
		}
	}
}

// errorIn returns what an error event says, "" for any other event.
func errorIn(ev event) string {
	switch ev.Method {
	case "Runtime.exceptionThrown":
		return "exception: " + string(ev.Params)
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(ev.Params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
			return "console." + p.Type + ": " + string(ev.Params)
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level string `json:"level"`
				Text  string `json:"text"`
				URL   string `json:"url"`
			} `json:"entry"`
		}
		if json.Unmarshal(ev.Params, &p) == nil && p.Entry.Level == "error" {
			return "log: " + p.Entry.Text + " " + p.Entry.URL
		}
	}
	return ""
}

// eval evaluates a JavaScript expression whose value is JSON-serialisable
// and decodes it into out.
func (tb *tab) eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := tb.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %q: %s", expr, r.ExceptionDetails.Text)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// screenshot returns a PNG of the top of the page, width by height CSS
// pixels drawn at scale.
func (tb *tab) screenshot(ctx context.Context, width, height int, scale float64) ([]byte, error) {
	var r struct {
		Data []byte `json:"data"` // base64 in JSON, decoded by encoding/json
	}
	clip := map[string]any{"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
	err := tb.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "clip": clip, "captureBeyondViewport": true}, &r)
	return r.Data, err
}
