package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// sharedBus connects to the broker of the LSST_* variables when they name
// one (the real-Kafka suite), else starts an in-process broker, and points
// salctl's LSST_* variables at it with a subname of the test's own, so
// that salctl runs as a second process would: not on an in-process bus of
// its own, with no built-in peer.
func sharedBus(t *testing.T, ctx context.Context, what string) *sal.Bus {
	t.Helper()
	sub := fmt.Sprintf("%s%d", what, rand.Uint32())
	b, err := sal.Connect(ctx, sal.WithDefinitions(salxml.Embedded()), sal.WithSubname(sub),
		sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	t.Setenv(topics.EnvBroker, strings.Join(b.Config().Brokers, ","))
	t.Setenv(topics.EnvRegistry, b.Config().RegistryURL)
	t.Setenv(topics.EnvSubname, sub)
	t.Setenv(salxml.EnvDir, "")
	os.Unsetenv(salxml.EnvDir)
	return b
}

// runSalctl runs salctl with args and returns its output and exit status.
func runSalctl(ctx context.Context, args ...string) (stdout, stderr string, status int, err error) {
	var out, errb bytes.Buffer
	err = run(&env{ctx: ctx, stdout: &out, stderr: &errb}, args)
	return out.String(), errb.String(), cli.Status(io.Discard, "salctl", err, false, nil), err
}

// TestState_KilledCSC: salctl state on a CSC that was ENABLED and then
// killed (closed without going OFFLINE: its last summaryState on the bus
// is still ENABLED) says it is not running and exits 3; on the live CSC it
// says alive and exits 0. On the bus of LSST_* when set (the real-Kafka
// suite), else on an in-process broker.
func TestState_KilledCSC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := sharedBus(t, ctx, "killed")
	c, err := b.Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	csc, err := demoCSC(ctx, b, c, 7, controller.WithInitialState(sal.Enabled))
	if err != nil {
		t.Fatal(err)
	}
	liveOut, liveErr, liveStatus, _ := runSalctl(ctx, "state", "Example:7")
	csc.Close() // killed: no OFFLINE written

	out, errText, status, err := runSalctl(ctx, "state", "Example:7")
	if status != cli.StatusNotRunning || !strings.Contains(out, "Example:7 summaryState 2 (ENABLED)") || !strings.Contains(out, "NOT RUNNING") {
		t.Errorf("salctl state on a killed CSC: exit %d (%v), stdout:\n%s\nstderr:\n%s\nwant the stale ENABLED, NOT RUNNING and exit %d",
			status, err, out, errText, cli.StatusNotRunning)
	}
	jout, _, jstatus, _ := runSalctl(ctx, "state", "Example:7", "-json")
	if jstatus != cli.StatusNotRunning || !strings.Contains(jout, `"alive":false`) {
		t.Errorf("salctl state -json on a killed CSC: exit %d, stdout:\n%s\nwant \"alive\":false and exit %d", jstatus, jout, cli.StatusNotRunning)
	}
	if liveStatus != 0 || !strings.Contains(liveOut, "Example:7 summaryState 2 (ENABLED)") || !strings.Contains(liveOut, "alive (heartbeat") {
		t.Errorf("salctl state on a live CSC: exit %d, stdout:\n%s\nstderr:\n%s\nwant ENABLED, alive and exit 0", liveStatus, liveOut, liveErr)
	}
}

// TestCommand_NotRunning: salctl command to a CSC whose heartbeat is not
// seen fails at once with exit status 3 and a plain message naming the CSC
// and -wait, rather than waiting for its -timeout; no raw slog line on
// stderr.
func TestCommand_NotRunning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sharedBus(t, ctx, "cmdnocsc")
	out, errText, status, err := runSalctl(ctx, "command", "Example:9", "setScalars", "-timeout", "20s")
	const want = "Example:9 is not running: no heartbeat within 3s, none in history (-wait sends the command anyway)"
	if status != cli.StatusNotRunning || err == nil || err.Error() != want {
		t.Errorf("salctl command to no CSC: exit %d, error %v\nwant exit %d, error %q\nstdout:\n%s\nstderr:\n%s", status, err, cli.StatusNotRunning, want, out, errText)
	}
	if strings.Contains(errText, "level=") {
		t.Errorf("a raw slog line on stderr:\n%s", errText)
	}
}

// TestState_NoCSC: salctl state of an instance that never ran (no
// summaryState, no heartbeat) says it is not running and exits 3 within
// the heartbeat bound, not after -timeout; so does one whose only
// neighbour (another SAL index) is running.
func TestState_NoCSC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := sharedBus(t, ctx, "nostate")
	c, err := b.Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	csc, err := demoCSC(ctx, b, c, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	for _, who := range []string{"Example:3", "Example:4"} {
		out, errText, status, err := runSalctl(ctx, "state", who, "-timeout", "60s")
		const want = "is not running: no heartbeat within 3s, none in history; no summaryState seen"
		if status != cli.StatusNotRunning || err == nil || !strings.Contains(err.Error(), who+" "+want) {
			t.Errorf("salctl state %s: exit %d, %v; want exit 3 and %q\nstdout:\n%s\nstderr:\n%s", who, status, err, want, out, errText)
		}
	}
}

// TestHeartbeatBound: three heartbeat intervals: 1 s for a CSC, 5 s for a
// SAL script (ts_salobj's BaseScript HEARTBEAT_INTERVAL).
func TestHeartbeatBound(t *testing.T) {
	if b := heartbeatBoundOf(&salxml.Component{Name: "Example"}); b != 3*time.Second {
		t.Errorf("Example: %s, want 3s", b)
	}
	if b := heartbeatBoundOf(&salxml.Component{Name: "Script"}); b != 15*time.Second {
		t.Errorf("Script: %s, want 15s", b)
	}
}
