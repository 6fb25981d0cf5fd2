package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	examplegen "github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/internal/testcsc"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestScriptQueuePython is the SAL script interop check: Python
// (py/scriptqueue.py) plays the ScriptQueue against the Go script
// examples/script on the real broker, the way ts_scriptqueue does it: it
// runs `<script> 0 --schema` and compares stdout with PyYAML's safe_dump
// of the schema; runs the script by its file name with the SAL index;
// on UNCONFIGURED sends configure, setGroupId and run with its own
// confluent-kafka serializers; resumes a pause, stops or SIGTERMs at a
// checkpoint; and checks every state event (state, lastCheckpoint,
// numCheckpoints, reason), description, metadata, checkpoints, logLevel,
// the final log line and the exit code. The script commands a Go Example
// CSC on the same bus (the typed CSC of examples/gen/example, which brings
// Example's definition: ts_xml has none). The script binary gets TS_XML_DIR
// (it reads the Script component from there and adds Example to it); the
// Python side needs it for Script. It needs TS_XML_DIR besides what every
// interop test needs.
func TestScriptQueuePython(t *testing.T) {
	env := needInterop(t)
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		t.Skip("TS_XML_DIR is unset: the Python ScriptQueue reads the Script component from ts_xml")
	}
	salDir, err := salxml.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "slew_test"), "../../examples/script")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build examples/script: %v\n%s", err, out)
	}
	schemaFile, err := filepath.Abs("../../examples/script/schema.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sub := subname(t)
	ctx := ctxFor(t, 10*time.Minute)
	bus := connect(t, defs, sub)
	// Example:1, which the script commands: its definition comes from the
	// generated package (examplegen.Use), the handlers from internal/testcsc.
	typed, err := examplegen.NewCSC(bus.Domain, 1, controller.WithAllowMissing(),
		controller.WithEnabledCommands(testcsc.EnabledCommands()...), controller.WithConcurrent(testcsc.Concurrent()...))
	if err != nil {
		t.Fatal(err)
	}
	test := typed.CSC
	defer test.Close()
	if err := testcsc.Handle(test, testcsc.Complete); err != nil {
		t.Fatal(err)
	}
	if err := test.Start(ctx); err != nil {
		t.Fatal(err)
	}

	state := func(name, last string, n int, reason string) []any { return []any{name, last, n, reason} }
	description := map[string]any{"classname": "SlewTest", "description": "Steps the Example CSC through setScalars commands", "remotes": "Example:1"}
	final := func(s string) string { return "Setting final state to " + s }
	cases := []map[string]any{
		{
			"name":      "pause, resume, done",
			"configure": map[string]any{"config": "steps: 3", "pause": "step 2", "blockId": "BL1_O_20260101_000001"},
			"action":    map[string]any{"when_state": "PAUSED", "checkpoint": "step 2", "do": "resume"},
			"states": []any{
				state("UNCONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""),
				state("RUNNING", "", 0, ""), state("RUNNING", "step 1", 1, ""), state("PAUSED", "step 2", 2, ""),
				state("RUNNING", "step 2", 2, ""), state("RUNNING", "step 3", 3, ""),
				state("ENDING", "step 3", 3, ""), state("DONE", "step 3", 3, ""),
			},
			"exit_code": 0, "configure_result": "Done", "description": description,
			"metadata":    map[string]any{"duration": 0.0, "totalCheckpoints": 3, "coordinateSystem": 1, "rotationSystem": 1, "dome": 3, "filters": ""},
			"checkpoints": []any{"step 2", ""},
			"logs":        []any{"steps=3, wait=0, enable=true", "step 3 of 3", final("<ScriptState.DONE: 8>")},
			"schema":      true,
		},
		{
			"name":      "stop while running",
			"configure": map[string]any{"config": "steps: 2\nwait: 30"},
			"action":    map[string]any{"when_state": "RUNNING", "checkpoint": "step 1", "do": "stop"},
			"states": []any{
				state("UNCONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""),
				state("RUNNING", "", 0, ""), state("RUNNING", "step 1", 1, ""),
				state("STOPPING", "step 1", 1, ""), state("STOPPED", "step 1", 1, ""),
			},
			"exit_code": 0, "configure_result": "Done", "description": description,
			"metadata":    map[string]any{"duration": 60.0, "totalCheckpoints": 2},
			"checkpoints": []any{"", ""},
			"logs":        []any{"Cleanup: leaving Example:1 as it is", final("<ScriptState.STOPPED: 9>")},
		},
		{
			"name":      "configure fails",
			"configure": map[string]any{"config": "steps: 0"},
			"states": []any{
				state("UNCONFIGURED", "", 0, ""),
				state("CONFIGURE_FAILED", "", 0, "config(steps: 0) failed: 0 is less than the minimum of 1\n\nFailed validating 'minimum' in schema['properties']['steps']:"),
			},
			"exit_code": 1, "configure_result": "Failed: config(steps: 0) failed: 0 is less than the minimum of 1", "description": description,
			"logs": []any{"config(steps: 0) failed", final("<ScriptState.CONFIGURE_FAILED: 11>")},
		},
		{
			"name":      "run fails (Example in STANDBY)",
			"configure": map[string]any{"config": "enable: false"},
			"states": []any{
				state("UNCONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""),
				state("RUNNING", "", 0, ""), state("RUNNING", "step 1", 1, ""),
				state("FAILING", "step 1", 1, "Error in run: "), state("FAILED", "step 1", 1, "Error in run: "),
			},
			"exit_code": 1, "configure_result": "Done", "description": description,
			"metadata":    map[string]any{"totalCheckpoints": 3},
			"checkpoints": []any{"", ""},
			"logs":        []any{"Error in run", final("<ScriptState.FAILED: 10>")},
			"standby":     true,
		},
		{
			"name":      "SIGTERM while running",
			"configure": map[string]any{"config": "steps: 1\nwait: 60"},
			"action":    map[string]any{"when_state": "RUNNING", "checkpoint": "step 1", "do": "terminate"},
			"states": []any{
				state("UNCONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""), state("CONFIGURED", "", 0, ""),
				state("RUNNING", "", 0, ""), state("RUNNING", "step 1", 1, ""), state("STOPPING", "step 1", 1, ""),
			},
			"exit_code": 1, "configure_result": "Done", "description": description,
			"metadata":    map[string]any{"duration": 60.0, "totalCheckpoints": 1},
			"checkpoints": []any{"", ""},
			"logs":        []any{"Handling termination signal."},
		},
	}
	for i, c := range cases {
		ok := t.Run(c["name"].(string), func(t *testing.T) {
			if c["standby"] == true {
				if err := test.SetState(ctx, sal.Standby); err != nil {
					t.Fatal(err)
				}
			}
			spec := map[string]any{
				"subname": sub, "sal_dir": salDir, "index": 100001 + i, "group_id": "2026-01-01T00:00:00.000",
				"script_dir": bin, "script_name": "slew_test", "case": c,
			}
			if c["schema"] == true {
				spec["schema_file"] = schemaFile
			}
			out := env.runPeer(t, "scriptqueue.py", spec)
			if out["exit_code"] != float64(c["exit_code"].(int)) {
				t.Errorf("exit code %v, want %v", out["exit_code"], c["exit_code"])
			}
			// The ScriptQueue takes the state it has read at the exit as
			// the script's last: unless terminated, the final one.
			if act, _ := c["action"].(map[string]any); act["do"] != "terminate" && out["final_state_before_exit"] != true {
				t.Errorf("final_state_before_exit %v: the process exited before its final state was read", out["final_state_before_exit"])
			}
		})
		if !ok {
			break
		}
	}
}

// runPeer runs another Python program of py/ (as runPython runs
// salinterop.py) with spec written to a file, fails the test when it
// fails, and returns its JSON summary.
func (e *interopEnv) runPeer(t *testing.T, program string, spec any) map[string]any {
	t.Helper()
	var b strings.Builder
	pyJSON(&b, spec)
	f := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t, 3*time.Minute)
	cmd := exec.CommandContext(ctx, e.python, filepath.Join(filepath.Dir(e.script), program), "--spec", f)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("python %s: %v (after %v)\nstderr:\n%s\nstdout:\n%s", program, err, time.Since(t0).Round(time.Millisecond), stderr.String(), stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var out map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &out); err != nil {
		t.Fatalf("python %s: last line of stdout is not JSON: %v\n%s", program, err, stdout.String())
	}
	t.Logf("python %s (%v): %s", program, time.Since(t0).Round(time.Millisecond), lines[len(lines)-1])
	return out
}
