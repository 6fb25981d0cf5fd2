package saltest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

// MakeTimeout bounds each wait of the script checks unless
// ScriptOptions.Timeout says otherwise: BaseScriptTestCase's MAKE_TIMEOUT
// (90 s).
const MakeTimeout = 90 * time.Second

// scriptIndices are the SAL indices of the scripts made, from 1, as
// salobj's index_generator.
var scriptIndices atomic.Int64

// ScriptOptions of NewScript.
type ScriptOptions struct {
	// Index is the script's SAL index (0: the next of 1, 2, ..., as
	// BaseScriptTestCase's next_index).
	Index int
	// Bus options for the private bus (e.g. sal.WithDefinitions; by
	// default ts_xml's through TS_XML_DIR, else the SDK's embedded Example
	// and Script components). The script is on the test's bus, as the
	// components it commands can be.
	Bus []sal.Option
	// Timeout bounds each wait (the make, configure, a state, the end of
	// the run); 0 means MakeTimeout. A script whose run takes longer sets
	// more.
	Timeout time.Duration
}

// ScriptHarness is a SAL script on a private bus, and the ScriptQueue's
// side of it, as BaseScriptTestCase's make_script gives. The harness reads
// the Remote's state event: read it through the harness (WaitState,
// WaitFinal, Checkpoints), not directly.
type ScriptHarness struct {
	// Bus is the test's side of the private bus: make the components the
	// script commands on it (e.g. NewCSC with Options.On). The script has
	// a bus of its own on the same broker (Script.Domain()), as a script
	// process has, so that its description lists its own Remotes only.
	Bus *sal.Bus
	// Script is the script, made from the spec.
	Script *sal.Script
	// Remote is a Remote of the Script component at the script's index,
	// on Bus.
	Remote *sal.Remote

	timeout time.Duration
	run     *sal.Future // the run command, once sent

	mu          sync.Mutex
	checkpoints []string
	seen        int64 // numCheckpoints of the newest state read
	last        map[string]any
}

// NewScript makes the script of spec (what the program gives
// sal.RunScript) on a private bus at a new SAL index, a Remote of it, then
// starts the script and waits for its UNCONFIGURED state, as
// BaseScriptTestCase's make_script. Everything is closed at the end of
// the test.
func NewScript(t testing.TB, spec sal.ScriptSpec, o ScriptOptions) *ScriptHarness {
	t.Helper()
	h := &ScriptHarness{timeout: o.Timeout}
	if h.timeout <= 0 {
		h.timeout = MakeTimeout
	}
	index := o.Index
	if index == 0 {
		index = int(scriptIndices.Add(1))
	}
	h.Bus = Bus(t, o.Bus...)
	if _, err := h.Bus.Config().Definitions.Component("Script"); err != nil {
		t.Fatalf("saltest: %v (the SDK's embedded definitions and ts_xml have one: set TS_XML_DIR, or give sal.WithDefinitions definitions that do)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	var err error
	if h.Remote, err = h.Bus.NewRemote(ctx, "Script", index); err != nil {
		t.Fatalf("saltest: make the Remote of Script:%d: %v", index, err)
	}
	t.Cleanup(h.Remote.Close)
	// The script has a bus of its own, as a script process has: its
	// description lists the Remotes made on it, not the test's.
	sb, err := sal.Connect(ctx, sal.WithConfig(h.Bus.Config()))
	if err != nil {
		t.Fatalf("saltest: connect the script's bus: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	if h.Script, err = sb.NewScript(index, spec); err != nil {
		t.Fatalf("saltest: make the script %s: %v", spec.Name, err)
	}
	t.Cleanup(h.Script.Close)
	if err := h.Script.Start(ctx); err != nil { // runs spec.Setup
		t.Fatalf("saltest: start the script %s: %v", spec.Name, err)
	}
	h.WaitState(t, sal.ScriptUnconfigured, nil)
	return h
}

// ScriptConfig is the configure command of a script, as the ScriptQueue
// sends it, and the group ID set after it.
type ScriptConfig struct {
	// Config is the configuration: YAML text, or a map (or any value
	// encoding/json writes as an object), sent as its JSON, which YAML
	// reads. nil or "": the schema's defaults.
	Config any
	// PauseCheckpoint and StopCheckpoint are the checkpoint patterns.
	PauseCheckpoint, StopCheckpoint string
	// LogLevel is the script's log level (0: unchanged).
	LogLevel int
	// BlockID is the configure command's blockId.
	BlockID string
	// GroupID is the group ID of setGroupId; "" means the current time
	// (as BaseScriptTestCase's configure_script sets).
	GroupID string
}

// Configure configures the script with c and sets its group ID, as
// BaseScriptTestCase's configure_script: it fails the test unless both
// commands succeed and the script is CONFIGURED.
func (h *ScriptHarness) Configure(t testing.TB, c ScriptConfig) {
	t.Helper()
	if err := h.ConfigureError(t, c); err != nil {
		t.Fatalf("%s: configure: %v", h.Remote.Name(), err)
	}
}

// ConfigureError is Configure for a configuration that may be refused: it
// returns the configure command's error (the script then ends in
// CONFIGURE_FAILED, which WaitFinal reads); nil once the script is
// CONFIGURED and its group ID set.
func (h *ScriptHarness) ConfigureError(t testing.TB, c ScriptConfig) error {
	t.Helper()
	text, ok := c.Config.(string)
	if !ok && c.Config != nil {
		b, err := json.Marshal(c.Config)
		if err != nil {
			t.Fatalf("saltest: ScriptConfig.Config: %v", err)
		}
		text = string(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	if _, err := h.Remote.Command(ctx, "configure", map[string]any{"config": text, "logLevel": c.LogLevel,
		"pauseCheckpoint": c.PauseCheckpoint, "stopCheckpoint": c.StopCheckpoint, "blockId": c.BlockID}, remote.WithTimeout(h.timeout)); err != nil {
		return err
	}
	h.WaitState(t, sal.ScriptConfigured, nil)
	group := c.GroupID
	if group == "" {
		group = time.Now().UTC().Format("2006-01-02T15:04:05.000")
	}
	if _, err := h.Remote.Command(ctx, "setGroupId", map[string]any{"groupId": group}, remote.WithTimeout(h.timeout)); err != nil {
		t.Fatalf("%s: setGroupId: %v", h.Remote.Name(), err)
	}
	return nil
}

// Run runs the configured script to its end and checks its final state
// is want, as BaseScriptTestCase's run_script (see WaitFinal). It returns
// the final state event.
func (h *ScriptHarness) Run(t testing.TB, want sal.ScriptState) map[string]any {
	t.Helper()
	h.StartRun(t)
	return h.WaitFinal(t, want)
}

// StartRun sends the run command and returns once it is sent, for a test
// that acts while the script runs (pause at a checkpoint, resume, stop):
// then WaitState, Command, and WaitFinal.
func (h *ScriptHarness) StartRun(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	f, err := h.Remote.StartCommand(ctx, "run", nil)
	if err != nil {
		t.Fatalf("%s: run: %v", h.Remote.Name(), err)
	}
	h.run = f
}

// Command sends a command to the script (resume, stop, setCheckpoints,
// ...) and fails the test unless it succeeds.
func (h *ScriptHarness) Command(t testing.TB, name string, params map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	if _, err := h.Remote.Command(ctx, name, params, remote.WithTimeout(h.timeout)); err != nil {
		t.Fatalf("%s: %s: %v", h.Remote.Name(), name, err)
	}
}

// isFinal says whether a script in state s has ended.
func isFinal(s sal.ScriptState) bool {
	switch s {
	case sal.ScriptDone, sal.ScriptStopped, sal.ScriptFailed, sal.ScriptConfigureFailed:
		return true
	}
	return false
}

// nextState reads the next state event, noting a new checkpoint.
func (h *ScriptHarness) nextState(t testing.TB, waiting string) (map[string]any, sal.ScriptState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	rec, err := h.Remote.MustEvent("state").Next(ctx)
	if err != nil {
		t.Fatalf("%s: no state %s within %s: %v (the last: %s)", h.Remote.Name(), waiting, h.timeout, err, h.describeLast())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := toInt(rec["numCheckpoints"]); n > h.seen {
		h.seen = n
		h.checkpoints = append(h.checkpoints, fmt.Sprint(rec["lastCheckpoint"]))
	}
	h.last = rec
	return rec, sal.ScriptState(toInt(rec["state"]))
}

// describeLast names the newest state read.
func (h *ScriptHarness) describeLast() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil {
		return "none"
	}
	return describeState(h.last)
}

func describeState(rec map[string]any) string {
	s := sal.ScriptState(toInt(rec["state"])).Name()
	if r, _ := rec["reason"].(string); r != "" {
		s += fmt.Sprintf(" (reason %q)", r)
	}
	return s
}

// WaitState reads the script's state events until one is in state want,
// checks the fields named in fields (as AssertNextSample compares them,
// e.g. lastCheckpoint, numCheckpoints) and returns it. A final state
// other than want fails the test, as does no such state within the
// harness's timeout.
func (h *ScriptHarness) WaitState(t testing.TB, want sal.ScriptState, fields map[string]any) map[string]any {
	t.Helper()
	for {
		rec, st := h.nextState(t, want.Name())
		if st == want {
			checkFields(t, h.Remote.Name()+" state "+want.Name(), rec, fields)
			return rec
		}
		if isFinal(st) {
			t.Fatalf("%s: ended %s while waiting for %s", h.Remote.Name(), describeState(rec), want.Name())
		}
	}
}

// checkFields compares the fields of rec named in want.
func checkFields(t testing.TB, what string, rec, want map[string]any) {
	t.Helper()
	var diffs []string
	for _, k := range sortedKeys(want) {
		got, ok := rec[k]
		if !ok {
			t.Fatalf("%s: no field %s", what, k)
		}
		if !same(got, want[k]) && !(isInt(got) && isInt(want[k]) && toInt(got) == toInt(want[k])) {
			diffs = append(diffs, fmt.Sprintf("  %s: read %#v, want %#v", k, got, want[k]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("%s differs:\n%s", what, strings.Join(diffs, "\n"))
	}
}

func isInt(v any) bool {
	switch v.(type) {
	case int, int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// WaitFinal waits for the end of the script: it reads the state events
// until a final state (DONE, STOPPED, FAILED, CONFIGURE_FAILED), waits for
// the run command's ack (if StartRun sent it) and for the script to have
// ended (Script.Done), then checks that the final state read and the
// script's own are want: no read of the state races the end. A failure
// gives the state's reason. It returns the final state event.
func (h *ScriptHarness) WaitFinal(t testing.TB, want sal.ScriptState) map[string]any {
	t.Helper()
	var rec map[string]any
	for {
		var st sal.ScriptState
		if rec, st = h.nextState(t, "final"); isFinal(st) {
			break
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	if h.run != nil {
		// The ack of run comes once the script has ended; it is
		// CMD_COMPLETE whatever the final state (salobj's do_run).
		if _, err := h.run.Wait(ctx); err != nil {
			t.Errorf("%s: run: %v", h.Remote.Name(), err)
		}
	}
	select {
	case <-h.Script.Done():
	case <-ctx.Done():
		t.Fatalf("%s: final state %s read, but the script has not ended within %s", h.Remote.Name(), describeState(rec), h.timeout)
	}
	if got := sal.ScriptState(toInt(rec["state"])); got != want {
		t.Errorf("%s: final state %s, want %s", h.Remote.Name(), describeState(rec), want.Name())
	} else if own := h.Script.State(); own != want {
		t.Errorf("%s: the script's state is %s, want %s", h.Remote.Name(), own.Name(), want.Name())
	}
	return rec
}

// Checkpoints returns the names of the checkpoints the script passed, in
// order (repetitions included), as the state events read so far (by
// WaitState and WaitFinal) tell: after WaitFinal, all of them.
func (h *ScriptHarness) Checkpoints() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.checkpoints)
}

// CheckScriptExecutable checks that a script program starts as the
// ScriptQueue starts it, as BaseScriptTestCase's check_executable: path
// (e.g. a binary built with go build) must be an executable file; run by
// its path with its folder first in PATH and a new SAL index its only
// argument, on a bus shared with the test (the program gets its brokers,
// registry and subname through the LSST_* variables), it must report
// UNCONFIGURED; then it is sent SIGTERM and must exit (its exit code is
// not checked: a script stopped before its end exits 1).
func CheckScriptExecutable(t testing.TB, path string, o ScriptOptions) {
	t.Helper()
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = MakeTimeout
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s is not an executable file (%v)", abs, err)
	}
	index := o.Index
	if index == 0 {
		index = int(scriptIndices.Add(1))
	}
	b := Bus(t, o.Bus...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r, err := b.NewRemote(ctx, "Script", index)
	if err != nil {
		t.Fatalf("saltest: Remote of Script:%d: %v", index, err)
	}
	defer r.Close()
	cmd := exec.Command(abs, strconv.Itoa(index))
	p := startProgram(t, cmd, b, "PATH="+filepath.Dir(abs)+string(os.PathListSeparator)+os.Getenv("PATH"))
	defer p.stop()
	rec, err := r.MustEvent("state").Next(ctx)
	if err != nil {
		t.Fatalf("%s %d: no state within %s: %v\nstderr:\n%s", abs, index, timeout, err, p.stderr.String())
	}
	if st := sal.ScriptState(toInt(rec["state"])); st != sal.ScriptUnconfigured {
		t.Errorf("%s %d: state %s, want UNCONFIGURED", abs, index, describeState(rec))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("saltest: SIGTERM: %v", err)
	}
	select {
	case <-p.exited:
	case <-ctx.Done():
		t.Errorf("%s %d still running %s after SIGTERM", abs, index, timeout)
	}
}
