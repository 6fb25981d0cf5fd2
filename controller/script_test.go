package controller_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// scriptDefs are the definitions of the script tests: ts_xml's when
// TS_XML_DIR is set, else the embedded ones (Script and Example).
func scriptDefs(t *testing.T) *salxml.Definitions {
	t.Helper()
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		return salxml.Embedded()
	}
	defs, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// testComponent is a component the scripts use besides Script: ts_xml's
// Test, or its embedded copy Example when TS_XML_DIR is unset.
func testComponent() string {
	if os.Getenv(salxml.EnvDir) != "" {
		return "Test"
	}
	return "Example"
}

// testSchema is the schema of ts_salobj's TestScript, in our words.
const testSchema = `
$schema: http://json-schema.org/draft-07/schema#
title: GoTestScript v1
type: object
properties:
  wait_time:
    type: number
    minimum: 0
    default: 0
  fail_run:
    type: boolean
    default: false
  fail_cleanup:
    type: boolean
    default: false
required: [wait_time, fail_run, fail_cleanup]
additionalProperties: false
`

// testScript records what the hooks of a script like salobj's TestScript
// saw: the configuration, the checkpoints' results, the cleanups.
type testScript struct {
	mu  sync.Mutex
	cfg struct {
		WaitTime    float64 `json:"wait_time"`
		FailRun     bool    `json:"fail_run"`
		FailCleanup bool    `json:"fail_cleanup"`
	}
	values   map[string]any
	cleanups int
	cleanCtx error         // Cleanup's ctx.Err() when it ran
	block    chan struct{} // if set, Run waits after "start" for its ctx, having closed this
	runErr   error         // what Run returned
	startErr error         // what Checkpoint("start") returned
}

func (ts *testScript) config() controller.ScriptConfig {
	return controller.ScriptConfig{
		Name: "GoTestScript", Description: "test script",
		Help:   "A test script: checkpoints start and end.",
		Schema: []byte(testSchema),
		Configure: func(ctx context.Context, s *controller.Script, c *controller.ScriptConfiguration) error {
			s.Logger().Info("Configure started")
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.values = c.Values
			return c.Decode(&ts.cfg)
		},
		SetMetadata: func(s *controller.Script, md *controller.ScriptMetadata) {
			md.Duration = ts.cfg.WaitTime
			md.TotalCheckpoints = 2
		},
		Run: func(ctx context.Context, s *controller.Script) (err error) {
			defer func() { ts.mu.Lock(); ts.runErr = err; ts.mu.Unlock() }()
			s.Logger().Info("Run started")
			if err := s.Checkpoint(ctx, "start"); err != nil {
				ts.mu.Lock()
				ts.startErr = err
				ts.mu.Unlock()
				return err
			}
			if ts.cfg.FailRun {
				return controller.Expectedf("Failed in run after wait: fail_run=True")
			}
			if ts.block != nil {
				close(ts.block)
				<-ctx.Done()
				// Stopping: a checkpoint now returns at once, counts nothing.
				if err := s.Checkpoint(context.Background(), "late"); !errors.Is(err, context.Canceled) {
					return fmt.Errorf("a checkpoint once stopping: %v", err)
				}
				return ctx.Err()
			}
			if err := s.Checkpoint(ctx, "end"); err != nil {
				return err
			}
			s.Logger().Info("Run succeeded")
			return nil
		},
		Cleanup: func(ctx context.Context, s *controller.Script) error {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.cleanups++
			ts.cleanCtx = ctx.Err()
			if ts.cfg.FailCleanup {
				return controller.Expectedf("Failed in cleanup: fail_cleanup=True")
			}
			return nil
		},
	}
}

func (ts *testScript) cleanupCount() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.cleanups
}

// scriptEnv is a bus shared by scripts (each on a Domain of its own, as a
// script process has) and the ScriptQueue's side of the test.
type scriptEnv struct {
	t     *testing.T
	cfg   topics.Config
	queue *topics.Domain
}

func newScriptEnv(t *testing.T) *scriptEnv {
	cfg, _ := testbus.Config(t, scriptDefs(t))
	return &scriptEnv{t: t, cfg: cfg, queue: testbus.Connect(t, cfg)}
}

// start makes a script (setup makes its Remotes on its Domain) and a
// Remote of it on the queue's side, started first, so that it reads
// every event the script writes.
func (e *scriptEnv) start(index int, cfg controller.ScriptConfig, setup func(d *topics.Domain)) (*controller.Script, *remote.Remote) {
	t := e.t
	t.Helper()
	d := testbus.Connect(t, e.cfg)
	s, err := controller.NewScript(d, index, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if setup != nil {
		setup(d)
	}
	r, err := remote.New(e.queue, "Script", index)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	ctx := testbus.Ctx(t)
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return s, r
}

func next(t *testing.T, r *remote.Remote, event string) map[string]any {
	t.Helper()
	rec, err := r.MustEvent(event).Next(testbus.Ctx(t))
	if err != nil {
		t.Fatalf("%s: %v", event, err)
	}
	return rec
}

// st is one state event as the ScriptQueue reads it.
type st struct {
	state          controller.ScriptState
	last           string
	n              int32
	reason         string
	groupID, block string
}

func (w st) String() string {
	return fmt.Sprintf("%s last=%q n=%d reason=%q groupId=%q blockId=%q", w.state.Name(), w.last, w.n, w.reason, w.groupID, w.block)
}

// expectStates reads the next state events and compares every field
// salobj writes (dayObs, blockExecution and executionId stay unset).
func expectStates(t *testing.T, r *remote.Remote, want ...st) {
	t.Helper()
	for i, w := range want {
		rec := next(t, r, "state")
		got := st{controller.ScriptState(rec["state"].(uint8)), rec["lastCheckpoint"].(string), rec["numCheckpoints"].(int32),
			rec["reason"].(string), rec["groupId"].(string), rec["blockId"].(string)}
		if got != w {
			t.Fatalf("state event %d: %s, want %s", i, got, w)
		}
		if rec["dayObs"].(int32) != 0 || rec["blockExecution"].(int32) != 0 || rec["executionId"].(string) != "" {
			t.Errorf("state event %d: dayObs=%v blockExecution=%v executionId=%q, want unset", i, rec["dayObs"], rec["blockExecution"], rec["executionId"])
		}
	}
}

// expectLog reads logMessage events until one has msg, and returns it.
func expectLog(t *testing.T, r *remote.Remote, msg string) map[string]any {
	t.Helper()
	for {
		rec := next(t, r, "logMessage")
		if rec["message"] == msg {
			return rec
		}
	}
}

func cmd(t *testing.T, r *remote.Remote, name string, params map[string]any) error {
	t.Helper()
	_, err := r.Command(testbus.Ctx(t), name, params, remote.WithTimeout(30*time.Second))
	var ae *remote.AckError
	if err != nil && !errors.As(err, &ae) {
		t.Fatalf("%s: %v", name, err)
	}
	return err
}

func mustCmd(t *testing.T, r *remote.Remote, name string, params map[string]any) {
	t.Helper()
	if err := cmd(t, r, name, params); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// failedWith checks that err is a CMD_FAILED ack with result "Failed: " + text.
func failedWith(t *testing.T, what string, err error, text string) {
	t.Helper()
	var ae *remote.AckError
	if !errors.As(err, &ae) || ae.Ack.Code != topics.CmdFailed || ae.Ack.Result != "Failed: "+text {
		t.Errorf("%s: %v; want CMD_FAILED %q", what, err, "Failed: "+text)
	}
}

func waitDone(t *testing.T, s *controller.Script) {
	t.Helper()
	select {
	case <-s.Done():
	case <-testbus.Ctx(t).Done():
		t.Fatal("the script did not end")
	}
}

// configure sends configure as the ScriptQueue does and reads the
// checkpoints, metadata and CONFIGURED state it gives.
func configure(t *testing.T, r *remote.Remote, config, pause, stop, block string) {
	t.Helper()
	mustCmd(t, r, "configure", map[string]any{"config": config, "pauseCheckpoint": pause, "stopCheckpoint": stop, "blockId": block})
	cp := next(t, r, "checkpoints")
	if cp["pause"] != pause || cp["stop"] != stop {
		t.Errorf("checkpoints %v, want pause=%q stop=%q", cp, pause, stop)
	}
}

// TestScript_ConfigurePauseResumeDone: a script started as the
// ScriptQueue starts one: logLevel 20, state UNCONFIGURED, description;
// configure (defaults filled, a metadata key dropped) writes checkpoints,
// metadata (BaseScript's starting values and the script's) and CONFIGURED
// with the block ID; run needs a group ID; then it pauses at "start",
// resumes, passes "end" and ends DONE after Cleanup, with the state
// events salobj writes and the run ack Done after the final state.
func TestScript_ConfigurePauseResumeDone(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{}
	s, r := e.start(100001, ts.config(), nil)
	if lv := next(t, r, "logLevel"); lv["level"] != int32(20) || lv["subsystem"] != "" {
		t.Errorf("logLevel %v, want 20", lv)
	}
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	d := next(t, r, "description")
	if d["classname"] != "GoTestScript" || d["description"] != "test script" || d["help"] != "A test script: checkpoints start and end." || d["remotes"] != "" {
		t.Errorf("description %v", d)
	}
	failedWith(t, "run while UNCONFIGURED", cmd(t, r, "run", nil), "Cannot run: state=UNCONFIGURED instead of CONFIGURED")

	// A level between INFO and DEBUG, as salobj's test_pause: logLevel
	// reports it exactly.
	mustCmd(t, r, "configure", map[string]any{"config": "metadata: {anything: 1}\nwait_time: 0.5", "logLevel": 19,
		"pauseCheckpoint": "start", "blockId": "BL1_O_20260101_000001"})
	if cp := next(t, r, "checkpoints"); cp["pause"] != "start" || cp["stop"] != "" {
		t.Errorf("checkpoints %v", cp)
	}
	if lv := next(t, r, "logLevel"); lv["level"] != int32(19) {
		t.Errorf("logLevel after configure %v, want 19", lv)
	}
	md := next(t, r, "metadata")
	for k, v := range map[string]any{"coordinateSystem": int16(1), "rotationSystem": int16(1), "dome": int16(3), "filters": "",
		"duration": 0.5, "totalCheckpoints": int32(2), "nimages": int32(0), "instrument": "", "survey": ""} {
		if md[k] != v {
			t.Errorf("metadata.%s = %#v, want %#v", k, md[k], v)
		}
	}
	expectStates(t, r, st{state: controller.ScriptConfigured, block: "BL1_O_20260101_000001"})
	if ts.values["wait_time"] != 0.5 || ts.values["fail_run"] != false || ts.values["fail_cleanup"] != false || len(ts.values) != 3 {
		t.Errorf("Configure got %v, want the defaults filled and metadata gone", ts.values)
	}
	failedWith(t, "configure twice", cmd(t, r, "configure", nil), "Cannot configure: state=CONFIGURED instead of UNCONFIGURED")
	failedWith(t, "run without a group ID", cmd(t, r, "run", nil), "Group ID not set")
	failedWith(t, "resume while CONFIGURED", cmd(t, r, "resume", nil), "Cannot resume: state=CONFIGURED instead of PAUSED")

	// The queue sets the group ID, may clear it and set it again.
	for _, g := range []string{"g1", "", "g2"} {
		mustCmd(t, r, "setGroupId", map[string]any{"groupId": g})
		expectStates(t, r, st{state: controller.ScriptConfigured, block: "BL1_O_20260101_000001", groupID: g})
	}
	if id, err := s.NextSupplementedGroupID(); err != nil || id != "g2#1" {
		t.Errorf("NextSupplementedGroupID %q, %v", id, err)
	}

	run, err := r.StartCommand(testbus.Ctx(t), "run", nil)
	if err != nil {
		t.Fatal(err)
	}
	blk := "BL1_O_20260101_000001"
	expectStates(t, r,
		st{state: controller.ScriptRunning, groupID: "g2", block: blk},
		st{state: controller.ScriptPaused, last: "start", n: 1, groupID: "g2", block: blk})
	failedWith(t, "setGroupId while PAUSED", cmd(t, r, "setGroupId", map[string]any{"groupId": "x"}), "Cannot setGroupId: state=PAUSED instead of CONFIGURED")
	mustCmd(t, r, "resume", nil)
	expectStates(t, r,
		st{state: controller.ScriptRunning, last: "start", n: 1, groupID: "g2", block: blk},
		st{state: controller.ScriptRunning, last: "end", n: 2, groupID: "g2", block: blk}, // a checkpoint that neither pauses nor stops: written again
		st{state: controller.ScriptEnding, last: "end", n: 2, groupID: "g2", block: blk},
		st{state: controller.ScriptDone, last: "end", n: 2, groupID: "g2", block: blk})
	if a, err := run.Wait(testbus.Ctx(t)); err != nil || a.Result != "Done" {
		t.Errorf("run ack %v, %v; want Done", a, err)
	}
	waitDone(t, s)
	if s.Err() != nil || s.State() != controller.ScriptDone || ts.cleanupCount() != 1 {
		t.Errorf("Err %v, state %s, cleanups %d; want nil, DONE, 1", s.Err(), s.State().Name(), ts.cleanupCount())
	}
	for _, m := range []string{"Configure started", "Run started", "Run succeeded", "Setting final state to <ScriptState.DONE: 8>"} {
		if rec := expectLog(t, r, m); rec["name"] != "Script" || rec["level"] != int32(20) {
			t.Errorf("logMessage %q: name %v level %v, want Script 20", m, rec["name"], rec["level"])
		}
	}
	failedWith(t, "configure after the end", cmd(t, r, "configure", nil), "Cannot configure: script is exiting")
	mustCmd(t, r, "stop", nil) // nothing to do: Done
}

// TestScript_ConfigureFailed: a configuration that does not parse, is not
// a mapping, or does not validate, ends the script in CONFIGURE_FAILED
// with salobj's reason (jsonschema's multi-line text), the command failing
// with it, a log "config(<text>) failed" with a traceback, no Cleanup.
func TestScript_ConfigureFailed(t *testing.T) {
	e := newScriptEnv(t)
	for i, c := range []struct{ config, reason string }{
		{"wait_time: -1", "config(wait_time: -1) failed: -1 is less than the minimum of 0\n\nFailed validating 'minimum' in schema['properties']['wait_time']:\n    {'type': 'number', 'minimum': 0, 'default': 0}\n\nOn instance['wait_time']:\n    -1"},
		{"fail_run: 3", "config(fail_run: 3) failed: 3 is not of type 'boolean'\n\nFailed validating 'type' in schema['properties']['fail_run']:\n    {'type': 'boolean', 'default': False}\n\nOn instance['fail_run']:\n    3"},
		{"no_such_arg: 1", "config(no_such_arg: 1) failed: Additional properties are not allowed ('no_such_arg' was unexpected)\n\nFailed validating 'additionalProperties' in schema:\n    {'$schema': 'http://json-schema.org/draft-07/schema#',\n     'title': 'GoTestScript v1',\n     'type': 'object',\n     'properties': {'wait_time': {'type': 'number',\n                                  'minimum': 0,\n                                  'default': 0},\n                    'fail_run': {'type': 'boolean', 'default': False},\n                    'fail_cleanup': {'type': 'boolean', 'default': False}},\n     'required': ['wait_time', 'fail_run', 'fail_cleanup'],\n     'additionalProperties': False}\n\nOn instance:\n    {'no_such_arg': 1,\n     'wait_time': 0,\n     'fail_run': False,\n     'fail_cleanup': False}"},
		{"just_a_string", "config(just_a_string) failed: 'str' object has no attribute 'pop'"},
		{"['not', 'a', 'dict']", "config(['not', 'a', 'dict']) failed: pop expected at most 1 argument, got 2"},
		{"0", "config(0) failed: 0 is not a dict"},
		// Not YAML: PyYAML's str() of its error (recorded with PyYAML 6.0.3).
		{"a : : 2", "config(a : : 2) failed: mapping values are not allowed here\n  in \"<unicode string>\", line 1, column 5:\n    a : : 2\n        ^"},
		{"wait_time: [1, 2", "config(wait_time: [1, 2) failed: while parsing a flow sequence\n  in \"<unicode string>\", line 1, column 12:\n    wait_time: [1, 2\n               ^\nexpected ',' or ']', but got '<stream end>'\n  in \"<unicode string>\", line 1, column 17:\n    wait_time: [1, 2\n                    ^"},
		{"wait_time: 1\nfail_run: 'yes", "config(wait_time: 1\nfail_run: 'yes) failed: while scanning a quoted scalar\n  in \"<unicode string>\", line 2, column 11:\n    fail_run: 'yes\n              ^\nfound unexpected end of stream\n  in \"<unicode string>\", line 2, column 15:\n    fail_run: 'yes\n                  ^"},
		// One the Go side does not map keeps the YAML reader's words.
		{"a: &x 1\n&y", "config(a: &x 1\n&y) failed: config:2: could not find expected ':'"},
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ts := &testScript{}
			s, r := e.start(200+i, ts.config(), nil)
			expectStates(t, r, st{state: controller.ScriptUnconfigured})
			failedWith(t, "configure", cmd(t, r, "configure", map[string]any{"config": c.config}), c.reason)
			expectStates(t, r, st{state: controller.ScriptConfigureFailed, reason: c.reason})
			waitDone(t, s)
			if rec := expectLog(t, r, "config("+c.config+") failed"); rec["level"] != int32(40) || rec["traceback"] == "" {
				t.Errorf("log: level %v traceback %q; want 40 and a traceback", rec["level"], rec["traceback"])
			}
			expectLog(t, r, "Setting final state to <ScriptState.CONFIGURE_FAILED: 11>")
			if s.State() != controller.ScriptConfigureFailed || s.Err() != nil || ts.cleanupCount() != 0 {
				t.Errorf("state %s, Err %v, cleanups %d", s.State().Name(), s.Err(), ts.cleanupCount())
			}
			// The final state was not written again.
			if rec := r.MustEvent("state").TryNext(); rec != nil {
				t.Errorf("another state event: %v", rec)
			}
		})
	}
}

// TestScript_StopWhileRunning: stop during Run is acked at once, cancels
// Run's context (a checkpoint then returns the cancellation and counts
// nothing), then STOPPING, Cleanup (with a live context) and STOPPED.
func TestScript_StopWhileRunning(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{block: make(chan struct{})}
	s, r := e.start(300, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	run, err := r.StartCommand(testbus.Ctx(t), "run", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-ts.block // Run is past "start", waiting for its context
	mustCmd(t, r, "stop", nil)
	expectStates(t, r,
		st{state: controller.ScriptConfigured},
		st{state: controller.ScriptConfigured, groupID: "g"},
		st{state: controller.ScriptRunning, groupID: "g"},
		st{state: controller.ScriptRunning, last: "start", n: 1, groupID: "g"},
		st{state: controller.ScriptStopping, last: "start", n: 1, groupID: "g"},
		st{state: controller.ScriptStopped, last: "start", n: 1, groupID: "g"})
	if a, err := run.Wait(testbus.Ctx(t)); err != nil || a.Result != "Done" {
		t.Errorf("run ack %v, %v; want Done", a, err)
	}
	waitDone(t, s)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.cleanups != 1 || ts.cleanCtx != nil || !errors.Is(ts.runErr, context.Canceled) {
		t.Errorf("cleanups %d (ctx %v), Run returned %v; want 1 (live), context.Canceled", ts.cleanups, ts.cleanCtx, ts.runErr)
	}
}

// TestScript_StopWhilePaused: stop while paused at a checkpoint: the
// checkpoint returns the cancellation, STOPPING, Cleanup, STOPPED.
func TestScript_StopWhilePaused(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{}
	s, r := e.start(301, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "st.*", "", "")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	if _, err := r.StartCommand(testbus.Ctx(t), "run", nil); err != nil {
		t.Fatal(err)
	}
	expectStates(t, r,
		st{state: controller.ScriptConfigured},
		st{state: controller.ScriptConfigured, groupID: "g"},
		st{state: controller.ScriptRunning, groupID: "g"},
		st{state: controller.ScriptPaused, last: "start", n: 1, groupID: "g"})
	mustCmd(t, r, "stop", nil)
	expectStates(t, r,
		st{state: controller.ScriptStopping, last: "start", n: 1, groupID: "g"},
		st{state: controller.ScriptStopped, last: "start", n: 1, groupID: "g"})
	waitDone(t, s)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.cleanups != 1 || !errors.Is(ts.startErr, context.Canceled) {
		t.Errorf("cleanups %d, checkpoint returned %v; want 1, context.Canceled", ts.cleanups, ts.startErr)
	}
}

// TestScript_StopCheckpoint: setCheckpoints (deprecated, still used) with
// a stop pattern that matches a whole name: the checkpoint writes
// STOPPING and returns salobj's "stop by request" error, which matches
// context.Canceled; a pattern matching only part of a name does not stop.
func TestScript_StopCheckpoint(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{}
	s, r := e.start(302, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "setCheckpoints", map[string]any{"pause": "", "stop": "en|sta"})
	mustCmd(t, r, "setCheckpoints", map[string]any{"pause": "", "stop": "en.|zzz"})
	if cp := next(t, r, "checkpoints"); cp["stop"] != "en|sta" {
		t.Errorf("checkpoints %v", cp)
	}
	next(t, r, "checkpoints")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	if _, err := r.StartCommand(testbus.Ctx(t), "run", nil); err != nil {
		t.Fatal(err)
	}
	expectStates(t, r,
		st{state: controller.ScriptConfigured},
		st{state: controller.ScriptConfigured, groupID: "g"},
		st{state: controller.ScriptRunning, groupID: "g"},
		st{state: controller.ScriptRunning, last: "start", n: 1, groupID: "g"},
		st{state: controller.ScriptStopping, last: "end", n: 2, groupID: "g"},
		st{state: controller.ScriptStopped, last: "end", n: 2, groupID: "g"})
	waitDone(t, s)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if !errors.Is(ts.runErr, context.Canceled) || ts.runErr.Error() != "stop by request: checkpoint end matches en.|zzz" || ts.cleanups != 1 {
		t.Errorf("Run returned %v, cleanups %d", ts.runErr, ts.cleanups)
	}
}

// TestScript_NamelessCheckpointStops: with the default stop pattern ""
// (re.fullmatch semantics), a checkpoint without a name stops the script.
func TestScript_NamelessCheckpointStops(t *testing.T) {
	e := newScriptEnv(t)
	cfg := (&testScript{}).config()
	var got error
	cfg.Run = func(ctx context.Context, s *controller.Script) error {
		got = s.Checkpoint(ctx, "")
		return got
	}
	s, r := e.start(303, cfg, nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	mustCmd(t, r, "run", nil)
	waitDone(t, s)
	if s.State() != controller.ScriptStopped || !errors.Is(got, context.Canceled) {
		t.Errorf("state %s, checkpoint %v", s.State().Name(), got)
	}
}

// TestScript_RunFails: an error from Run ends in FAILING then FAILED with
// reason "Error in run: <error>", after Cleanup; an error that is not an
// ExpectedError is logged "Error in run" with a traceback; run is acked
// Done all the same.
func TestScript_RunFails(t *testing.T) {
	e := newScriptEnv(t)
	for i, c := range []struct {
		err    error
		logged bool
	}{{errors.New("the mount did not answer"), true}, {controller.Expectedf("Failed in run after wait: fail_run=True"), false}} {
		cfg := (&testScript{}).config()
		cleanups := 0
		cfg.Cleanup = func(context.Context, *controller.Script) error { cleanups++; return nil }
		cfg.Run = func(ctx context.Context, s *controller.Script) error {
			if err := s.Checkpoint(ctx, "start"); err != nil {
				return err
			}
			return c.err
		}
		s, r := e.start(400+i, cfg, nil)
		expectStates(t, r, st{state: controller.ScriptUnconfigured})
		configure(t, r, "", "", "", "")
		mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
		mustCmd(t, r, "run", nil)
		reason := "Error in run: " + c.err.Error()
		expectStates(t, r,
			st{state: controller.ScriptConfigured},
			st{state: controller.ScriptConfigured, groupID: "g"},
			st{state: controller.ScriptRunning, groupID: "g"},
			st{state: controller.ScriptRunning, last: "start", n: 1, groupID: "g"},
			st{state: controller.ScriptFailing, last: "start", n: 1, groupID: "g", reason: reason},
			st{state: controller.ScriptFailed, last: "start", n: 1, groupID: "g", reason: reason})
		waitDone(t, s)
		if s.Err() != nil || cleanups != 1 {
			t.Errorf("%v: Err %v, cleanups %d", c.err, s.Err(), cleanups)
		}
		var logged bool
		for {
			rec := next(t, r, "logMessage")
			if rec["message"] == "Error in run" {
				logged = rec["traceback"] != "" && rec["level"] == int32(40)
			}
			if rec["message"] == "Setting final state to <ScriptState.FAILED: 10>" {
				break
			}
		}
		if logged != c.logged {
			t.Errorf("%v: logged with traceback %v, want %v", c.err, logged, c.logged)
		}
	}
}

// TestScript_CleanupFails: a failing Cleanup ends in FAILED with reason
// "failed in _exit: <error>" (after the old reason) and Err returns it.
func TestScript_CleanupFails(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{}
	s, r := e.start(500, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "fail_cleanup: true", "", "", "")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	mustCmd(t, r, "run", nil)
	expectStates(t, r,
		st{state: controller.ScriptConfigured},
		st{state: controller.ScriptConfigured, groupID: "g"},
		st{state: controller.ScriptRunning, groupID: "g"},
		st{state: controller.ScriptRunning, last: "start", n: 1, groupID: "g"},
		st{state: controller.ScriptRunning, last: "end", n: 2, groupID: "g"},
		st{state: controller.ScriptEnding, last: "end", n: 2, groupID: "g"},
		st{state: controller.ScriptFailed, last: "end", n: 2, groupID: "g", reason: "failed in _exit: Failed in cleanup: fail_cleanup=True"})
	waitDone(t, s)
	if s.Err() == nil || s.Err().Error() != "Failed in cleanup: fail_cleanup=True" {
		t.Errorf("Err %v", s.Err())
	}
}

// TestScript_StopBeforeRun: stop in CONFIGURED writes STOPPING and
// STOPPED at once, without Cleanup; the ack follows the final state.
func TestScript_StopBeforeRun(t *testing.T) {
	e := newScriptEnv(t)
	ts := &testScript{}
	s, r := e.start(600, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "stop", nil)
	expectStates(t, r, st{state: controller.ScriptConfigured}, st{state: controller.ScriptStopping}, st{state: controller.ScriptStopped})
	waitDone(t, s)
	if ts.cleanupCount() != 0 {
		t.Errorf("Cleanup ran %d times", ts.cleanupCount())
	}
	failedWith(t, "setCheckpoints after the end", cmd(t, r, "setCheckpoints", nil), "Cannot setCheckpoints: script is exiting")
}

// TestScript_CloseWhileRunning: Close (what a signal does) cancels Run;
// the run command writes STOPPING, Cleanup does not run, there is no
// final state.
func TestScript_CloseWhileRunning(t *testing.T) {
	s, r, ts := runBlocked(t, 700)
	s.Close()
	expectRunThenStopping(t, r)
	if s.State() != controller.ScriptStopping || ts.cleanupCount() != 0 {
		t.Errorf("state %s, cleanups %d; want STOPPING, 0", s.State().Name(), ts.cleanupCount())
	}
}

// TestScript_CloseCancelsRunFirst: Close cancels Run's context before the
// run command's; a Run that returns at once then still ends STOPPING, not
// FAILING (a signal's Close raced it so).
func TestScript_CloseCancelsRunFirst(t *testing.T) {
	s, r, _ := runBlocked(t, 701)
	controller.CancelRun(s) // Close stopped here, before it cancels the commands
	expectRunThenStopping(t, r)
	s.Close()
}

// runBlocked starts a script at index, configures it, sets its group ID
// and runs it; it returns once Run is blocked (in ts.block).
func runBlocked(t *testing.T, index int) (*controller.Script, *remote.Remote, *testScript) {
	t.Helper()
	e := newScriptEnv(t)
	ts := &testScript{block: make(chan struct{})}
	s, r := e.start(index, ts.config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	if _, err := r.StartCommand(testbus.Ctx(t), "run", nil); err != nil {
		t.Fatal(err)
	}
	<-ts.block
	return s, r, ts
}

// expectRunThenStopping expects the states of runBlocked's script and
// then STOPPING.
func expectRunThenStopping(t *testing.T, r *remote.Remote) {
	t.Helper()
	expectStates(t, r,
		st{state: controller.ScriptConfigured},
		st{state: controller.ScriptConfigured, groupID: "g"},
		st{state: controller.ScriptRunning, groupID: "g"},
		st{state: controller.ScriptRunning, last: "start", n: 1, groupID: "g"},
		st{state: controller.ScriptStopping, last: "start", n: 1, groupID: "g"})
}

// TestScript_BadCheckpoints: a pattern that is not a regular expression
// fails configure with salobj's "pause=<repr> not a valid regex: " shape;
// the state stays UNCONFIGURED and another configure may follow.
func TestScript_BadCheckpoints(t *testing.T) {
	e := newScriptEnv(t)
	_, r := e.start(800, (&testScript{}).config(), nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	for _, c := range []struct{ pause, stop, prefix string }{
		{"(", "", "Failed: pause='(' not a valid regex: "},
		{"", "a)|(b", "Failed: stop='a)|(b' not a valid regex: "},
		{"x(?=y)", "", "Failed: pause='x(?=y)' not a valid regex: "}, // a lookahead: Python accepts it, RE2 does not
	} {
		err := cmd(t, r, "configure", map[string]any{"pauseCheckpoint": c.pause, "stopCheckpoint": c.stop})
		var ae *remote.AckError
		if !errors.As(err, &ae) || !strings.HasPrefix(ae.Ack.Result, c.prefix) {
			t.Errorf("pause %q stop %q: %v; want %q...", c.pause, c.stop, err, c.prefix)
		}
	}
	configure(t, r, "", "a", "b", "")
	expectStates(t, r, st{state: controller.ScriptConfigured})
}

// TestScript_Remotes: description.remotes lists the other Instances of
// the script's Domain as "<Name>:<index>", sorted, once each, after they
// are ready; a script without a schema takes only an empty config.
func TestScript_Remotes(t *testing.T) {
	e := newScriptEnv(t)
	cfg := controller.ScriptConfig{Name: "NoConfig", Run: func(context.Context, *controller.Script) error { return nil }}
	s, r := e.start(900, cfg, func(d *topics.Domain) {
		for _, i := range []int{7, 5, 7} {
			rm, err := remote.New(d, testComponent(), i)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(rm.Close)
			if err := rm.Start(testbus.Ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
	})
	if d := next(t, r, "description"); d["remotes"] != testComponent()+":5,"+testComponent()+":7" || d["classname"] != "NoConfig" {
		t.Errorf("description %v", d)
	}
	failedWith(t, "configure", cmd(t, r, "configure", map[string]any{"config": "a: 1"}), "config(a: 1) failed: This script has no configuration so config=a: 1 must be empty.")
	waitDone(t, s)
}

// TestScript_CheckpointOutsideRun and a zero index: salobj's texts.
func TestScript_CheckpointOutsideRun(t *testing.T) {
	e := newScriptEnv(t)
	s, _ := e.start(901, (&testScript{}).config(), nil)
	err := s.Checkpoint(context.Background(), "x")
	if err == nil || err.Error() != "checkpoint error: state=UNCONFIGURED instead of RUNNING; did you call checkpoint from somewhere other than `run`?" {
		t.Errorf("Checkpoint: %v", err)
	}
	if _, err := controller.NewScript(e.queue, 0, (&testScript{}).config()); err == nil || !strings.Contains(err.Error(), "index must be nonzero") {
		t.Errorf("index 0: %v", err)
	}
	if _, err := s.NextSupplementedGroupID(); err == nil || err.Error() != "No group ID" {
		t.Errorf("NextSupplementedGroupID: %v", err)
	}
}

// TestScript_Heartbeat: the heartbeat is written every HeartbeatInterval
// once started (salobj: 5 s, sleeping first).
func TestScript_Heartbeat(t *testing.T) {
	e := newScriptEnv(t)
	cfg := (&testScript{}).config()
	cfg.HeartbeatInterval = 10 * time.Millisecond
	_, r := e.start(902, cfg, nil)
	for range 2 {
		if hb := next(t, r, "heartbeat"); hb["heartbeat"] != false {
			t.Errorf("heartbeat %v", hb)
		}
	}
}

// TestScript_FinalStateBeforeDone: Done closes only FinalStateDelay after
// the final state is written: when a Remote reads the final state, Done is
// still open (the ScriptQueue, told of the exit by SIGCHLD and of the state
// by the bus, must see the state first). Close during the delay ends it
// with the script's own Err.
func TestScript_FinalStateBeforeDone(t *testing.T) {
	e := newScriptEnv(t)
	cfg := (&testScript{}).config()
	cfg.FinalStateDelay = time.Hour // ended by Close below
	cfg.Cleanup = func(context.Context, *controller.Script) error { return controller.Expectedf("cleanup failed") }
	cfg.Run = func(ctx context.Context, s *controller.Script) error { return controller.Expectedf("run failed") }
	s, r := e.start(950, cfg, nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
	mustCmd(t, r, "run", nil)
	expectStates(t, r,
		st{state: controller.ScriptConfigured},
		st{state: controller.ScriptConfigured, groupID: "g"},
		st{state: controller.ScriptRunning, groupID: "g"},
		st{state: controller.ScriptFailing, groupID: "g", reason: "Error in run: run failed"},
		st{state: controller.ScriptFailed, groupID: "g", reason: "Error in run: run failed; failed in _exit: cleanup failed"})
	select {
	case <-s.Done():
		t.Fatal("Done closed when the final state was read")
	default:
	}
	s.Close()
	waitDone(t, s)
	if s.Err() == nil || s.Err().Error() != "cleanup failed" {
		t.Errorf("Err %v, want cleanup failed", s.Err())
	}

	// A short delay: Done closes by itself, and the final state is then
	// on the bus for a Remote that starts afterwards.
	cfg = (&testScript{}).config()
	cfg.FinalStateDelay = time.Millisecond
	s, r = e.start(951, cfg, nil)
	expectStates(t, r, st{state: controller.ScriptUnconfigured})
	configure(t, r, "", "", "", "")
	mustCmd(t, r, "stop", nil)
	waitDone(t, s)
	late, err := remote.New(e.queue, "Script", 951)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	if err := late.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	if rec := late.MustEvent("state").Get(); rec == nil || controller.ScriptState(rec["state"].(uint8)) != controller.ScriptStopped {
		t.Errorf("state read after Done: %v, want STOPPED", rec)
	}
}

// TestScript_RunFailsAckError: Run returning a Remote's failed command
// gives salobj's reason, str() of its AckError or AckTimeoutError (golden
// texts made with salobj's _ackcmd_str and AckError.__str__ under Python
// 3.11); wrapped, the wrapper's text around it.
func TestScript_RunFailsAckError(t *testing.T) {
	e := newScriptEnv(t)
	for i, c := range []struct {
		err  error
		want string
	}{
		{&remote.AckError{Remote: "MTMount:0", Command: "homeBothAxes", Ack: &topics.Ack{Code: topics.CmdFailed, Error: 1, Result: "Failed: the mount's axes are 'not' homed", SeqNum: 7}},
			`Error in run: msg='Command failed', ackcmd=(ackcmd private_seqNum=7, ack=<SalRetCode.CMD_FAILED: -302>, error=1, result="Failed: the mount's axes are 'not' homed")`},
		{&remote.AckError{Ack: &topics.Ack{Code: topics.CmdAborted, Result: "Aborted", SeqNum: 12}},
			`Error in run: msg='Command failed', ackcmd=(ackcmd private_seqNum=12, ack=<SalRetCode.CMD_ABORTED: -303>, error=0, result='Aborted')`},
		{&remote.AckError{Ack: &topics.Ack{Code: topics.CmdTimeout, Result: "Timeout", SeqNum: 3}},
			`Error in run: msg='Command failed', ackcmd=(ackcmd private_seqNum=3, ack=<SalRetCode.CMD_TIMEOUT: -304>, error=0, result='Timeout')`},
		{&remote.AckError{Ack: &topics.Ack{Code: topics.CmdNoPerm, Result: "Not permitted by authList", SeqNum: 4}},
			`Error in run: msg='Command failed', ackcmd=(ackcmd private_seqNum=4, ack=<SalRetCode.CMD_NOPERM: -300>, error=0, result='Not permitted by authList')`},
		{&remote.TimeoutError{Last: &topics.Ack{Code: topics.CmdNoAck, Result: "No command acknowledgement seen", SeqNum: 99}, Hint: "no heartbeat seen"},
			`Error in run: msg='Timed out waiting for command acknowledgement', ackcmd=(ackcmd private_seqNum=99, ack=<SalRetCode.CMD_NOACK: -301>, error=0, result='No command acknowledgement seen')`},
		{&remote.TimeoutError{Last: &topics.Ack{Code: topics.CmdInProgress, Result: "In progress: été\n", SeqNum: 100}},
			`Error in run: msg='Timed out waiting for command acknowledgement', ackcmd=(ackcmd private_seqNum=100, ack=<SalRetCode.CMD_INPROGRESS: 301>, error=0, result='In progress: été\n')`},
		{fmt.Errorf("slew: %w", &remote.AckError{Ack: &topics.Ack{Code: topics.CmdFailed, Error: 1, Result: "Failed: no", SeqNum: 8}}),
			`Error in run: slew: msg='Command failed', ackcmd=(ackcmd private_seqNum=8, ack=<SalRetCode.CMD_FAILED: -302>, error=1, result='Failed: no')`},
	} {
		cfg := (&testScript{}).config()
		cfg.FinalStateDelay = -1
		cfg.Run = func(context.Context, *controller.Script) error { return c.err }
		s, r := e.start(960+i, cfg, nil)
		expectStates(t, r, st{state: controller.ScriptUnconfigured})
		configure(t, r, "", "", "", "")
		mustCmd(t, r, "setGroupId", map[string]any{"groupId": "g"})
		mustCmd(t, r, "run", nil)
		expectStates(t, r,
			st{state: controller.ScriptConfigured},
			st{state: controller.ScriptConfigured, groupID: "g"},
			st{state: controller.ScriptRunning, groupID: "g"},
			st{state: controller.ScriptFailing, groupID: "g", reason: c.want})
		waitDone(t, s)
	}
}

// TestScript_StartTwiceRunsSetupOnce: Setup (the script's constructor)
// runs in the first Start only; a second Start is an error and makes no
// second set of Remotes.
func TestScript_StartTwiceRunsSetupOnce(t *testing.T) {
	e := newScriptEnv(t)
	var ts testScript
	cfg := ts.config()
	setups := 0
	cfg.Setup = func(ctx context.Context, s *controller.Script) error {
		setups++
		r, err := s.NewRemote(ctx, "Script", 9999, remote.WithReadOnly())
		if err == nil {
			t.Cleanup(r.Close)
		}
		return err
	}
	s, _ := e.start(950, cfg, nil)
	if err := s.Start(testbus.Ctx(t)); err == nil {
		t.Error("a second Start succeeded")
	}
	if setups != 1 {
		t.Errorf("Setup ran %d times, want 1", setups)
	}
}
