package saltest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
	salxml "github.com/lsst-sal/salgo/xml"
)

var tsXML = sync.OnceValues(func() (*salxml.Definitions, error) { return salxml.Open(os.Getenv(salxml.EnvDir)) })

// scriptBus are the bus options of the script tests: ts_xml's
// definitions when TS_XML_DIR is set, else the embedded ones, which have
// the Script component too.
func scriptBus(t *testing.T) saltest.ScriptOptions {
	t.Helper()
	if os.Getenv(salxml.EnvDir) == "" {
		return saltest.ScriptOptions{Bus: []sal.Option{sal.WithDefinitions(sal.EmbeddedDefinitions())}}
	}
	defs, err := tsXML()
	if err != nil {
		t.Fatal(err)
	}
	return saltest.ScriptOptions{Bus: []sal.Option{sal.WithDefinitions(defs)}}
}

// withoutScript are the embedded definitions (xml/example) without the
// Script component.
func withoutScript(t *testing.T) *salxml.Definitions {
	t.Helper()
	src := os.DirFS("../../xml/example")
	fsys := fstest.MapFS{}
	for _, name := range []string{"SALSubsystems.xml", "SALGenerics.xml", "Example/Example_Commands.xml", "Example/Example_Events.xml", "Example/Example_Telemetry.xml"} {
		b, err := fs.ReadFile(src, name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: b}
	}
	subs := string(fsys["SALSubsystems.xml"].Data)
	i := strings.Index(subs, "<SALSubsystem>\n    <Name>Script</Name>")
	j := strings.Index(subs[max(i, 0):], "</SALSubsystem>")
	if i < 0 || j < 0 {
		t.Fatal("no Script component in xml/example/SALSubsystems.xml")
	}
	fsys["SALSubsystems.xml"].Data = []byte(subs[:i] + subs[i+j+len("</SALSubsystem>"):])
	defs, err := salxml.OpenFS(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// stepScript passes the checkpoints "start", "step 1", ..., "end"; it
// fails in run if fail is set.
func stepScript() sal.ScriptSpec {
	var cfg struct {
		Steps int  `json:"steps"`
		Fail  bool `json:"fail"`
	}
	return sal.ScriptSpec{
		Name:   "StepScript",
		Schema: []byte("title: StepScript v1\ntype: object\nproperties:\n  steps: {type: integer, minimum: 0, default: 2}\n  fail: {type: boolean, default: false}\nadditionalProperties: false\n"),
		Configure: func(ctx context.Context, s *sal.Script, c *sal.ScriptConfiguration) error {
			return c.Decode(&cfg)
		},
		Run: func(ctx context.Context, s *sal.Script) error {
			names := []string{"start"}
			for i := 1; i <= cfg.Steps; i++ {
				names = append(names, "step "+string(rune('0'+i)))
			}
			for _, n := range append(names, "end") {
				if err := s.Checkpoint(ctx, n); err != nil {
					return err
				}
			}
			if cfg.Fail {
				return errors.New("asked to fail")
			}
			return nil
		},
	}
}

// TestScript_RunDone: configured with a map, then YAML text, the script
// runs to DONE through its checkpoints (BaseScriptTestCase's
// configure_script and run_script).
func TestScript_RunDone(t *testing.T) {
	o := scriptBus(t)
	h := saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{Config: map[string]any{"steps": 3}})
	rec := h.Run(t, sal.ScriptDone)
	if got, want := h.Checkpoints(), []string{"start", "step 1", "step 2", "step 3", "end"}; !slices.Equal(got, want) {
		t.Errorf("checkpoints %q, want %q", got, want)
	}
	if rec["numCheckpoints"] != int32(5) || rec["lastCheckpoint"] != "end" || h.Script.GroupID() == "" {
		t.Errorf("final state %v, group ID %q", rec, h.Script.GroupID())
	}

	h = saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{Config: "steps: 0"})
	h.Run(t, sal.ScriptDone)
	if got := h.Checkpoints(); !slices.Equal(got, []string{"start", "end"}) {
		t.Errorf("checkpoints %q, want [start end]", got)
	}
}

// TestScript_PauseResumeStop: paused at a checkpoint and resumed the
// script ends DONE; at a stop checkpoint, STOPPED; a failing run, FAILED
// with its reason; a refused configuration, CONFIGURE_FAILED.
func TestScript_PauseResumeStop(t *testing.T) {
	o := scriptBus(t)
	h := saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{PauseCheckpoint: "step 2"})
	h.StartRun(t)
	h.WaitState(t, sal.ScriptPaused, map[string]any{"lastCheckpoint": "step 2", "numCheckpoints": 3})
	h.Command(t, "resume", nil)
	h.WaitFinal(t, sal.ScriptDone)

	h = saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{StopCheckpoint: "step.*"})
	h.Run(t, sal.ScriptStopped)
	if got := h.Checkpoints(); !slices.Equal(got, []string{"start", "step 1"}) {
		t.Errorf("checkpoints %q, want [start step 1]", got)
	}

	h = saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{Config: "fail: true"})
	if rec := h.Run(t, sal.ScriptFailed); rec["reason"] != "Error in run: asked to fail" {
		t.Errorf("reason %q", rec["reason"])
	}

	h = saltest.NewScript(t, stepScript(), o)
	if err := h.ConfigureError(t, saltest.ScriptConfig{Config: "steps: -1"}); err == nil || !strings.Contains(err.Error(), "-1 is less than the minimum of 0") {
		t.Errorf("configure with steps -1: %v", err)
	}
	h.WaitFinal(t, sal.ScriptConfigureFailed)
}

// TestScript_ChecksFail: the checks fail saying what differs: the final
// state with its reason, a state never reached.
func TestScript_ChecksFail(t *testing.T) {
	o := scriptBus(t)
	h := saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{Config: map[string]any{"fail": true}})
	if got := fails(t, func(tb testing.TB) { h.Run(tb, sal.ScriptDone) }); !strings.Contains(got, `final state FAILED (reason "Error in run: asked to fail"), want DONE`) {
		t.Errorf("Run(DONE) of a failing script reported %q", got)
	}

	h = saltest.NewScript(t, stepScript(), o)
	h.Configure(t, saltest.ScriptConfig{})
	h.StartRun(t)
	if got := fails(t, func(tb testing.TB) { h.WaitState(tb, sal.ScriptPaused, nil) }); !strings.Contains(got, "ended DONE while waiting for PAUSED") {
		t.Errorf("WaitState(PAUSED) of a script that does not pause reported %q", got)
	}

	o.Timeout = time.Second // no state comes: the wait ends
	h = saltest.NewScript(t, stepScript(), o)
	if got := fails(t, func(tb testing.TB) { h.WaitState(tb, sal.ScriptRunning, nil) }); !strings.Contains(got, "no state RUNNING within 1s") || !strings.Contains(got, "the last: UNCONFIGURED") {
		t.Errorf("WaitState(RUNNING) of an unconfigured script reported %q", got)
	}
}

// TestNewScript_NoScriptComponent: with definitions that lack the Script
// component the harness says where to find it.
func TestNewScript_NoScriptComponent(t *testing.T) {
	defs := withoutScript(t)
	got := fails(t, func(tb testing.TB) {
		saltest.NewScript(tb, stepScript(), saltest.ScriptOptions{Bus: []sal.Option{sal.WithDefinitions(defs)}})
	})
	if !strings.Contains(got, "Script") || !strings.Contains(got, "set TS_XML_DIR") {
		t.Errorf("NewScript without the Script component reported %q", got)
	}
}

// ExampleNewScript shows a script test as BaseScriptTestCase's: make the
// script from its spec, configure it, run it to DONE, look at its
// checkpoints.
func ExampleNewScript() {
	t := &exampleTB{}
	defer t.cleanup()
	h := saltest.NewScript(t, stepScript(), saltest.ScriptOptions{})
	h.Configure(t, saltest.ScriptConfig{Config: "steps: 2"})
	final := h.Run(t, sal.ScriptDone)
	fmt.Println(sal.ScriptState(final["state"].(uint8)).Name(), h.Checkpoints(), "failed:", t.failed)
	// Output:
	// DONE [start step 1 step 2 end] failed: false
}
