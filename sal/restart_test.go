package sal_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startAt starts the embedded broker with o, retrying a few times while
// a port of the cluster just closed is still taken.
func startAt(t *testing.T, o embedded.Options) *embedded.Cluster {
	t.Helper()
	for try := 0; ; try++ {
		c, err := embedded.Start(o)
		if err == nil {
			return c
		}
		if !errors.Is(err, syscall.EADDRINUSE) || try == 20 {
			t.Fatalf("start the embedded broker on ports %d and %d: %v", o.KafkaPort, o.RegistryPort, err)
		}
		time.Sleep(100 * time.Millisecond) // the port is the kernel's to free; nothing to wait on
	}
}

// TestEmbeddedDataDir_RestartRecovers: the embedded bus restarted with
// the same data folder and ports is the same bus to its clients, as a
// real broker restarted is. The client that wrote and read before the
// restart writes and reads again without being restarted, and a late
// joiner reads the history from before the restart, its schema ids
// resolved by the restarted registry.
func TestEmbeddedDataDir_RestartRecovers(t *testing.T) {
	o := embedded.Options{KafkaPort: freePort(t), RegistryPort: freePort(t), DataDir: t.TempDir()}
	c := startAt(t, o)
	defer func() { c.Close() }()

	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("SALGO_TEST_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := func() *sal.Bus {
		b, err := sal.Connect(ctx, sal.WithBrokers(c.Brokers()...), sal.WithRegistry(c.RegistryURL()),
			sal.WithSubname("restart"), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(logger))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	b := connect()
	ctrl, err := b.NewController("Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer ctrl.Close()
	rem, err := b.NewRemote(ctx, "Example", 1, remote.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer rem.Close()
	w, ev := ctrl.MustEvent("scalars"), rem.MustEvent("scalars")

	// write writes int0=n, again while the broker is still coming back
	// (each failed Write is the client's to report), and waits for the
	// reader to see it.
	write := func(n int) {
		t.Helper()
		for {
			_, err := w.Write(ctx, map[string]any{"int0": n})
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("write int0=%d: %v", n, err)
			}
			t.Logf("write int0=%d: %v; again", n, err)
		}
		for {
			rec, err := ev.Next(ctx)
			if err != nil {
				t.Fatalf("reading int0=%d: %v", n, err)
			}
			if rec["int0"] == int32(n) {
				return
			}
		}
	}
	write(1)

	regAt := func() *sr.Client {
		cl, err := sr.NewClient(sr.URLs(c.RegistryURL()))
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	subjects, err := regAt().Subjects(ctx)
	if err != nil || len(subjects) == 0 {
		t.Fatalf("subjects before the restart: %v, %v", subjects, err)
	}
	before := map[string]sr.SubjectSchema{}
	for _, s := range subjects {
		if before[s], err = regAt().SchemaByVersion(ctx, s, -1); err != nil {
			t.Fatal(err)
		}
	}

	c.Close()
	c = startAt(t, o)
	// Before any client registers again, the registry has every schema
	// under its id; a registration of another program's schema then takes
	// a new id (on a registry that forgot, it would take one the records
	// on disk carry).
	reg := regAt()
	for s, want := range before {
		got, err := reg.SchemaByVersion(ctx, s, want.Version)
		if err != nil || got.ID != want.ID || got.Schema.Schema != want.Schema.Schema {
			t.Errorf("after the restart, subject %s version %d: id %d, %v; want id %d and the same text", s, want.Version, got.ID, err, want.ID)
		}
	}
	other, err := reg.CreateSchema(ctx, "other-value", sr.Schema{Schema: `{"type":"record","name":"other","fields":[]}`})
	if err != nil {
		t.Fatal(err)
	}
	for s, was := range before {
		if other.ID == was.ID {
			t.Errorf("a new schema after the restart took id %d, the id of %s", other.ID, s)
		}
	}
	write(2)

	// A late joiner: the latest sample, and the records from before the
	// restart decoded with the schema the registry gives for their id.
	late, err := connect().NewRemote(ctx, "Example", 1, remote.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	if rec := late.MustEvent("scalars").Get(); rec == nil || rec["int0"] != int32(2) {
		t.Errorf("late joiner's scalars: %v, want int0=2", rec)
	}
	tctx, tcancel := context.WithCancel(ctx)
	defer tcancel()
	var seen []any
	err = b.Tap(tctx, []string{w.Topic().KafkaName("restart")}, 10, func(r topics.TapRecord) {
		if r.Err != nil {
			t.Errorf("history record at offset %d (schema id %d): %v", r.Offset, r.SchemaID, r.Err)
			return
		}
		seen = append(seen, r.Value["int0"])
		if len(seen) == 2 {
			tcancel()
		}
	})
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 {
		t.Errorf("history int0 values %v (Tap: %v), want [1 2]", seen, err)
	}
}

// TestWithEmbeddedDataDir: a Bus on the embedded broker with a data
// folder finds, connected again on the folder, the events written before.
func TestWithEmbeddedDataDir(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := func() *sal.Bus {
		t.Helper()
		b, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithEmbeddedDataDir(dir), sal.WithSubname("kept"),
			sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := connect()
	ctrl, err := b.NewController("Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ctrl.MustEvent("scalars").Write(ctx, map[string]any{"int0": 7}); err != nil {
		t.Fatal(err)
	}
	ctrl.Close()
	b.Close()

	b = connect()
	defer b.Close()
	r, err := b.NewRemote(ctx, "Example", 1, remote.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if rec := r.MustEvent("scalars").Get(); rec == nil || rec["int0"] != int32(7) {
		t.Errorf("scalars after the restart: %v, want int0=7", rec)
	}
}
