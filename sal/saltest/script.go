package saltest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	// Bus options for the private bus (e.g. sal.WithDefinitions: the
	// Script component is in ts_xml, found through TS_XML_DIR by
	// default). ScriptSpec.Bus is not used: the script is on the test's
	// bus, as the components it commands can be.
	Bus []sal.Option
	// Timeout bounds each wait (the make, configure, a state, the end of
	// the run); 0 means MakeTimeout. A script whose run takes longer sets
	// more.
	Timeout time.Duration
}

// ScriptHarness is a SAL script on a private bus, and the ScriptQueue's
// side of it: a Remote of the Script component at the script's index, as
// BaseScriptTestCase's make_script gives. Make the components the script
// commands on Bus. The harness reads the Remote's state event: read it
// through the harness (WaitState, WaitFinal, Checkpoints), not directly.
type ScriptHarness struct {
	Bus    *sal.Bus
	Script *sal.Script
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
		t.Fatalf("saltest: %v (the Script component is in ts_xml: set TS_XML_DIR, or give sal.WithDefinitions)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	var err error
	if h.Remote, err = h.Bus.NewRemote(ctx, "Script", index); err != nil {
		t.Fatalf("saltest: make the Remote of Script:%d: %v", index, err)
	}
	t.Cleanup(h.Remote.Close)
	if h.Script, err = h.Bus.NewScript(ctx, index, spec); err != nil {
		t.Fatalf("saltest: make the script %s: %v", spec.Name, err)
	}
	t.Cleanup(h.Script.Close)
	if err := h.Script.Start(ctx); err != nil {
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
		"pauseCheckpoint": c.PauseCheckpoint, "stopCheckpoint": c.StopCheckpoint, "blockId": c.BlockID}, sal.WithTimeout(h.timeout)); err != nil {
		return err
	}
	h.WaitState(t, sal.ScriptConfigured, nil)
	group := c.GroupID
	if group == "" {
		group = time.Now().UTC().Format("2006-01-02T15:04:05.000")
	}
	if _, err := h.Remote.Command(ctx, "setGroupId", map[string]any{"groupId": group}, sal.WithTimeout(h.timeout)); err != nil {
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
	if _, err := h.Remote.Command(ctx, name, params, sal.WithTimeout(h.timeout)); err != nil {
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
