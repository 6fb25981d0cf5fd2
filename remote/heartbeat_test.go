package remote_test

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// logWatch keeps the records at WARN or above and signals each one.
type logWatch struct {
	mu   sync.Mutex
	msgs []string
	ch   chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{ch: make(chan struct{}, 100)} }

func (h *logWatch) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *logWatch) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *logWatch) WithGroup(string) slog.Handler                { return h }
func (h *logWatch) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.Key + "=" + a.Value.String()); return true })
	h.mu.Lock()
	h.msgs = append(h.msgs, b.String())
	h.mu.Unlock()
	select {
	case h.ch <- struct{}{}:
	default:
	}
	return nil
}

func (h *logWatch) lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.msgs...)
}

// waitFor waits for a line holding text, until ctx ends.
func (h *logWatch) waitFor(ctx context.Context, text string) (string, error) {
	for {
		for _, l := range h.lines() {
			if strings.Contains(l, text) {
				return l, nil
			}
		}
		select {
		case <-h.ch:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// watchedDomain is a Domain for t whose log goes to a logWatch.
func watchedDomain(t *testing.T) (*topics.Domain, *logWatch) {
	t.Helper()
	w := newLogWatch()
	cfg, _ := testbus.Config(t, nil)
	cfg.Logger = slog.New(w)
	return testbus.Connect(t, cfg), w
}

// TestRemote_NoHeartbeatHint: a command to a CSC that is not running
// (no heartbeat of that component and index) logs, within a few seconds,
// that no heartbeat has been seen, and its timeout error says so too; the
// command itself goes on until its timeout (a hint, not a failure).
func TestRemote_NoHeartbeatHint(t *testing.T) {
	d, logs := watchedDomain(t)
	r := newRemote(t, d, 7)
	if _, ok := r.HeartbeatAge(); ok {
		t.Error("HeartbeatAge reports a heartbeat no one wrote")
	}
	f, err := r.StartCommand(testbus.Ctx(t), "setScalars", nil, remote.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testbus.Ctx(t), 10*time.Second) // a guard: the hint comes after 2 s
	defer cancel()
	line, err := logs.waitFor(ctx, "no heartbeat")
	if err != nil {
		t.Fatalf("no hint logged: %v; log: %q", err, logs.lines())
	}
	const hint = "remote: no heartbeat of Example:7 has been seen: is its CSC running?"
	if !strings.HasPrefix(line, hint) || !strings.Contains(line, "command=setScalars") {
		t.Errorf("hint %q, want %q with the command", line, hint)
	}
	select {
	case <-f.Done():
		t.Fatal("the hint ended the command")
	default:
	}
	// The command's own timeout error says so too.
	f2, err := r.StartCommand(testbus.Ctx(t), "setScalars", nil, remote.WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f2.Wait(testbus.Ctx(t))
	var te *remote.TimeoutError
	if !errors.As(err, &te) || te.Hint != "no heartbeat of Example:7 has been seen: is its CSC running?" || !strings.HasSuffix(err.Error(), "; "+te.Hint) {
		t.Errorf("timeout error %v (hint %q)", err, te.Hint)
	}
}

var staleHint = regexp.MustCompile(`^the newest heartbeat of Example:8 is 1h0m[0-9]+s old: is its CSC running\?$`)

// TestRemote_StaleHeartbeatHint: the newest heartbeat of an instance that
// stopped long ago is no sign of life: the hint gives its age.
func TestRemote_StaleHeartbeatHint(t *testing.T) {
	d, _ := watchedDomain(t)
	comp, _ := d.Component("Example")
	peer := testbus.NewPeer(t, d, "Example:8", 1, 8)
	hb := comp.Event("heartbeat")
	newRemote(t, d, 8).Close() // creates the topics
	peer.Write(hb, peer.Record(hb, map[string]any{"private_sndStamp": topics.TAI() - 3600}))
	r := newRemote(t, d, 8)
	age, ok := r.HeartbeatAge()
	if !ok || age < 59*time.Minute || age > 61*time.Minute {
		t.Errorf("HeartbeatAge %s, %v: want about 1h", age, ok)
	}
	_, err := r.Command(testbus.Ctx(t), "setScalars", nil, remote.WithTimeout(100*time.Millisecond))
	var te *remote.TimeoutError
	// The age is rounded to the second when the command times out: on a
	// slow machine that is more than half a second after the stamp.
	if !errors.As(err, &te) || !staleHint.MatchString(te.Hint) {
		t.Errorf("timeout error %v", err)
	}
}

// TestRemote_LiveCSCNoHint: commands to a running CSC log no hint, and
// the Remote knows the CSC's heartbeat is fresh.
func TestRemote_LiveCSCNoHint(t *testing.T) {
	d, logs := watchedDomain(t)
	startCSC(t, d, 9)
	r := newRemote(t, d, 9)
	if age, ok := r.HeartbeatAge(); !ok || age > 3*time.Second {
		t.Errorf("HeartbeatAge %s, %v: want a fresh heartbeat", age, ok)
	}
	enable(t, r)
	if _, err := r.Command(testbus.Ctx(t), "setScalars", nil); err != nil {
		t.Fatal(err)
	}
	// A command that waits past the hint's delay: still no hint.
	if _, err := r.Command(testbus.Ctx(t), "wait", map[string]any{"duration": 2.5}); err != nil {
		t.Fatal(err)
	}
	for _, l := range logs.lines() {
		if strings.Contains(l, "heartbeat") {
			t.Errorf("hint for a live CSC: %s", l)
		}
	}
}
