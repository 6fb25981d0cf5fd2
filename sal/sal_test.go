package sal_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/testcsc"
	"github.com/lsst-sal/salgo/remote"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

var subSeq int

// newBus connects a Bus for one test: the bus of the LSST_* variables when
// set, else an embedded one; each test gets its own topic subname.
func newBus(t testing.TB) *sal.Bus {
	t.Helper()
	subSeq++
	name := strings.NewReplacer("/", "_", "#", "").Replace(t.Name())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("SALGO_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := sal.Connect(ctx,
		sal.WithSubname(fmt.Sprintf("t%d_%d_%s", os.Getpid(), subSeq, name)),
		sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startCSC starts an Example CSC like the reference's TestCsc (see
// internal/testcsc).
func startCSC(t testing.TB, b *sal.Bus, index int, opts ...sal.CSCOption) *sal.CSC {
	t.Helper()
	opts = append([]sal.CSCOption{
		controller.WithEnabledCommands(testcsc.EnabledCommands()...),
		controller.WithConcurrent(testcsc.Concurrent()...),
	}, opts...)
	csc, err := b.NewCSC("Example", index, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := testcsc.Handle(csc, testcsc.Complete); err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(csc.Close)
	return csc
}

func newRemote(t testing.TB, b *sal.Bus, index int, opts ...sal.RemoteOption) *sal.Remote {
	t.Helper()
	r, err := b.NewRemote(ctxT(t), "Example", index, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitState waits for the Remote to see the CSC in state want.
// It returns once the latest summaryState is want and drops the older
// states still queued, so a later waitState cannot take one of them (the
// DISABLED on the way to ENABLED, say) for a new transition.
func waitState(t testing.TB, r *sal.Remote, want sal.State) {
	t.Helper()
	ctx := ctxT(t)
	ev := r.MustEvent("summaryState")
	for {
		if rec := ev.Get(); rec != nil && sal.State(rec["summaryState"].(int32)) == want {
			if err := ev.Flush(); err != nil {
				t.Fatal(err)
			}
			return
		}
		rec, err := ev.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", want.Name(), err)
		}
		if sal.State(rec["summaryState"].(int32)) == want {
			return
		}
	}
}

func enable(t testing.TB, r *sal.Remote) {
	t.Helper()
	for _, c := range []string{"start", "enable"} {
		if _, err := r.Command(ctxT(t), c, nil); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
}

func TestIndexedPair(t *testing.T) {
	b := newBus(t)
	c1 := startCSC(t, b, 1)
	c2 := startCSC(t, b, 2)
	all := newRemote(t, b, 0, remote.WithReadOnly())
	// The index-0 reader sees the summaryState of both, history first.
	seen := map[int32]bool{}
	ctx := ctxT(t)
	for len(seen) < 2 {
		rec, err := all.MustEvent("summaryState").Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen[rec["salIndex"].(int32)] = true
	}
	r1 := newRemote(t, b, 1)
	if _, err := r1.Command(ctx, "start", nil); err != nil {
		t.Fatal(err)
	}
	if c1.State() != sal.Disabled || c2.State() != sal.Standby {
		t.Errorf("states after start to index 1: %s %s", c1.State().Name(), c2.State().Name())
	}
	// CSC 2 reads the same command topic in order: once it has acked a
	// start of its own, it has read the one for index 1, and filtered it.
	r2 := newRemote(t, b, 2)
	if _, err := r2.Command(ctx, "standby", nil); !errors.Is(err, sal.ErrCommandFailed) {
		t.Fatalf("standby to CSC 2 in STANDBY: %v, want it refused", err)
	}
	if _, err := r2.Command(ctx, "start", nil); err != nil {
		t.Fatal(err)
	}
	if s := c2.Stats(); s.Received != 2 {
		t.Errorf("CSC 2 received %d commands, want its own 2 (not the one meant for index 1)", s.Received)
	}
	if f := readerStats(b, "Example", 2, "command_start").Filtered; f != 1 {
		t.Errorf("CSC 2's start reader filtered %d records, want the 1 meant for index 1", f)
	}
	if c1.State() != sal.Disabled || c2.State() != sal.Disabled {
		t.Errorf("states after start to index 2: %s %s", c1.State().Name(), c2.State().Name())
	}
}

// readerStats returns the stats of the one reader of topic (SAL name) of
// the component instance on b.
func readerStats(b *sal.Bus, comp string, index int, topic string) topics.ReaderStats {
	for _, s := range b.Stats() {
		if s.Role == "reader" && s.Component == comp && s.Index == index && s.Topic == topic {
			return s.Reader
		}
	}
	return topics.ReaderStats{}
}
