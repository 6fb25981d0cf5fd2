package sal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/remote"
	salxml "github.com/lsst-sal/salgo/xml"
)

// scriptBus starts an embedded broker and registry, with ts_xml's
// definitions when TS_XML_DIR is set, else the embedded ones (Script and
// Example), that a script run by runScript and the test's own bus both
// use.
func scriptBus(t *testing.T) []Option {
	t.Helper()
	defs := salxml.Embedded()
	if dir := os.Getenv(salxml.EnvDir); dir != "" {
		var err error
		if defs, err = salxml.Open(dir); err != nil {
			t.Fatal(err)
		}
	}
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return []Option{WithBrokers(c.Brokers()...), WithRegistry(c.RegistryURL()), WithSubname("script_" + strings.ReplaceAll(t.Name(), "/", "_")),
		WithDefinitions(defs), WithLogger(quietLogger())}
}

const slewSchema = `
title: Slew v1
type: object
properties:
  steps: {type: integer, minimum: 1, default: 2}
  fail: {type: boolean, default: false}
  fail_cleanup: {type: boolean, default: false}
additionalProperties: false
`

// testComponent is the component the scripts command: ts_xml's Test, or
// its embedded copy Example when TS_XML_DIR is unset.
func testComponent() string {
	if os.Getenv(salxml.EnvDir) != "" {
		return "Test"
	}
	return "Example"
}

// slewSpec is a script that commands a Test component: setScalars once
// per step, a checkpoint "step N" before each.
func slewSpec(block chan struct{}) ScriptSpec {
	var cfg struct {
		Steps       int
		Fail        bool
		FailCleanup bool `json:"fail_cleanup"`
	}
	var test *Remote
	return ScriptSpec{
		Name: "Slew", Description: "slews the Test component", Schema: []byte(slewSchema),
		Setup: func(ctx context.Context, s *Script) (err error) {
			test, err = s.NewRemote(ctx, testComponent(), 1, remote.WithInclude("summaryState"))
			return err
		},
		Configure: func(ctx context.Context, s *Script, c *ScriptConfiguration) error { return c.Decode(&cfg) },
		SetMetadata: func(s *Script, md *ScriptMetadata) {
			md.TotalCheckpoints = int32(cfg.Steps)
			md.Duration = float64(cfg.Steps)
		},
		Run: func(ctx context.Context, s *Script) error {
			for i := 1; i <= cfg.Steps; i++ {
				if err := s.Checkpoint(ctx, "step "+strconv.Itoa(i)); err != nil {
					return err
				}
				if _, err := test.Command(ctx, "setScalars", map[string]any{"int0": i}); err != nil {
					return err
				}
			}
			if block != nil {
				close(block)
				<-ctx.Done()
				return ctx.Err()
			}
			if cfg.Fail {
				return errors.New("the mount did not answer")
			}
			return nil
		},
		Cleanup: func(ctx context.Context, s *Script) error {
			if cfg.FailCleanup {
				return errors.New("could not park")
			}
			return nil
		},
	}
}

func runScriptArgs(ctx context.Context, spec ScriptSpec, opts []Option, args ...string) runResult {
	var out, errb bytes.Buffer
	code := runScript(ctx, spec, opts, args, &out, &errb)
	return runResult{code, out.String(), errb.String()}
}

// TestRunScript_CommandLine: BaseScript's command line: the index is
// required (argparse's texts, exit 2); --schema prints the schema as
// yaml.safe_dump does plus print's newline, without connecting, and
// nothing for a script without one; index 0 is refused (exit 1).
func TestRunScript_CommandLine(t *testing.T) {
	spec := slewSpec(nil)
	for _, tc := range []struct {
		args                   []string
		code                   int
		stdout, stderrContains string
	}{
		{nil, 2, "", "Run Slew from the command line: error: the following arguments are required: index\n"},
		{[]string{"--schema"}, 2, "", "error: the following arguments are required: index"},
		{[]string{"x"}, 2, "", "Run Slew from the command line: error: argument index: invalid int value: 'x'\n"},
		{[]string{"1", "--version"}, 2, "", "error: unrecognized arguments: --version"},
		{[]string{"0", "--schema"}, 0, "additionalProperties: false\nproperties:\n  fail:\n    default: false\n    type: boolean\n" +
			"  fail_cleanup:\n    default: false\n    type: boolean\n  steps:\n    default: 2\n    minimum: 1\n    type: integer\n" +
			"title: Slew v1\ntype: object\n\n", ""},
		{[]string{"0"}, 1, "", "index must be nonzero"},
	} {
		r := runScriptArgs(context.Background(), spec, nil, tc.args...)
		if r.code != tc.code || r.stdout != tc.stdout || !strings.Contains(r.stderr, tc.stderrContains) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, ...%q", tc.args, r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.stderrContains)
		}
	}
	r := runScriptArgs(context.Background(), spec, nil, "-h")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: Run Slew from the command line [-h] [--schema] index\n") || !strings.Contains(r.stdout, "Script SAL Component index; must be unique among running Scripts") {
		t.Errorf("-h: exit %d, stdout %q", r.code, r.stdout)
	}
	spec.Schema = nil
	if r := runScriptArgs(context.Background(), spec, nil, "5", "--schema"); r.code != 0 || r.stdout != "" {
		t.Errorf("--schema without a schema: exit %d, stdout %q", r.code, r.stdout)
	}
}

// queueSide is the ScriptQueue's side of a test: a Remote of the script
// and a Test controller for the script to command.
type queueSide struct {
	script *Remote
	test   *Controller
	mu     sync.Mutex
	idents []string // private_identity of the setScalars commands received
}

func newQueueSide(t *testing.T, ctx context.Context, opts []Option, index int) *queueSide {
	t.Helper()
	b, err := Connect(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	q := &queueSide{}
	if q.test, err = b.NewController(testComponent(), 1, controller.WithAllowMissing()); err != nil {
		t.Fatal(err)
	}
	q.test.HandleFunc("setScalars", func(ctx context.Context, cmd *Command) error {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.idents = append(q.idents, cmd.Identity)
		return nil
	})
	if err := q.test.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if q.script, err = b.NewRemote(ctx, "Script", index); err != nil {
		t.Fatal(err)
	}
	return q
}

// untilState reads state events until st (failing on a timeout).
func untilState(t *testing.T, ctx context.Context, r *Remote, st ScriptState) map[string]any {
	t.Helper()
	for {
		rec, err := r.MustEvent("state").Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", st.Name(), err)
		}
		if ScriptState(rec["state"].(uint8)) == st {
			return rec
		}
	}
}

// untilFinal reads r's script states until a final one (DONE, STOPPED,
// FAILED, CONFIGURE_FAILED) and returns it.
func untilFinal(t *testing.T, ctx context.Context, r *Remote) map[string]any {
	t.Helper()
	for {
		rec, err := r.MustEvent("state").Next(ctx)
		if err != nil {
			t.Fatalf("waiting for a final state: %v", err)
		}
		if ScriptState(rec["state"].(uint8)) >= ScriptDone {
			return rec
		}
	}
}

// TestRunScript_Outcomes: the program as the ScriptQueue runs it (index
// on the command line, everything else from the bus): configured, group
// ID set, run; its Remote commands Test with the script's identity and
// is listed in description.remotes; the exit code is 0 for DONE, 1 for
// FAILED, CONFIGURE_FAILED and a failed Cleanup.
func TestRunScript_Outcomes(t *testing.T) {
	opts := scriptBus(t)
	for i, c := range []struct {
		config string
		final  ScriptState
		code   int
		reason string
	}{
		{"steps: 3", ScriptDone, 0, ""},
		{"fail: true", ScriptFailed, 1, "Error in run: the mount did not answer"},
		{"fail_cleanup: true", ScriptFailed, 1, "failed in _exit: could not park"},
		{"steps: 0", ScriptConfigureFailed, 1, ""},
	} {
		t.Run(c.config, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			index := 100001 + i
			q := newQueueSide(t, ctx, opts, index)
			var res runResult
			var wg sync.WaitGroup
			wg.Go(func() { res = runScriptArgs(ctx, slewSpec(nil), opts, strconv.Itoa(index)) })
			untilState(t, ctx, q.script, ScriptUnconfigured)
			if d, err := q.script.MustEvent("description").Next(ctx); err != nil || d["remotes"] != testComponent()+":1" || d["classname"] != "Slew" {
				t.Errorf("description %v, %v", d, err)
			}
			_, err := q.script.Command(ctx, "configure", map[string]any{"config": c.config})
			if c.final == ScriptConfigureFailed {
				if err == nil || !strings.Contains(err.Error(), "config(steps: 0) failed: 0 is less than the minimum of 1") {
					t.Errorf("configure: %v", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := q.script.Command(ctx, "setGroupId", map[string]any{"groupId": "g"}); err != nil {
					t.Fatal(err)
				}
				if _, err := q.script.Command(ctx, "run", nil); err != nil {
					t.Fatal(err)
				}
			}
			wg.Wait()
			// The final state, read with Next: the program's exit says
			// nothing of whether its last event has reached the Remote.
			rec := untilFinal(t, ctx, q.script)
			if got := ScriptState(rec["state"].(uint8)); got != c.final || res.code != c.code || c.reason != "" && rec["reason"] != c.reason {
				t.Errorf("final %s (reason %q), exit %d (stderr %q); want %s, %d, %q", got.Name(), rec["reason"], res.code, res.stderr, c.final.Name(), c.code, c.reason)
			}
			q.mu.Lock()
			defer q.mu.Unlock()
			for _, id := range q.idents {
				if id != "Script:"+strconv.Itoa(index) {
					t.Errorf("setScalars from identity %q, want Script:%d", id, index)
				}
			}
			if c.final == ScriptDone && len(q.idents) != 3 {
				t.Errorf("%d setScalars commands, want 3", len(q.idents))
			}
		})
	}
}

// TestRunScript_StopAndSignal: stop while running ends STOPPED (exit 0);
// a signal while running cancels Run, leaves STOPPING and exits 1.
func TestRunScript_StopAndSignal(t *testing.T) {
	opts := scriptBus(t)
	for i, viaSignal := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		index := 200001 + i
		q := newQueueSide(t, ctx, opts, index)
		block := make(chan struct{})
		signal, send := context.WithCancel(ctx)
		var res runResult
		var wg sync.WaitGroup
		wg.Go(func() { res = runScriptArgs(signal, slewSpec(block), opts, strconv.Itoa(index)) })
		untilState(t, ctx, q.script, ScriptUnconfigured)
		for _, c := range []struct {
			name   string
			params map[string]any
		}{{"configure", nil}, {"setGroupId", map[string]any{"groupId": "g"}}} {
			if _, err := q.script.Command(ctx, c.name, c.params); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := q.script.StartCommand(ctx, "run", nil); err != nil {
			t.Fatal(err)
		}
		<-block
		want, code := ScriptStopped, 0
		if viaSignal {
			send()
			want, code = ScriptStopping, 1
		} else if _, err := q.script.Command(ctx, "stop", nil); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		untilState(t, ctx, q.script, want)
		if res.code != code {
			t.Errorf("signal %v: exit %d (stderr %q), want %d", viaSignal, res.code, res.stderr, code)
		}
		send()
	}
}
