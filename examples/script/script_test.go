package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// wantSchema is what `python3 -c 'import yaml; print(yaml.safe_dump(yaml.safe_load(open("schema.yaml"))))'`
// prints (PyYAML 6.0.3): what a salobj script prints for --schema.
const wantSchema = "$id: https://github.com/lsst-sal/salgo/examples/script/schema.yaml\n$schema: http://json-schema.org/draft-07/schema#\n" +
	"additionalProperties: false\ndescription: Configuration of the SlewTest script.\nproperties:\n  enable:\n    default: true\n" +
	"    description: Bring Test:1 to ENABLED before the first step.\n    type: boolean\n  steps:\n    default: 3\n" +
	"    description: How many setScalars commands to send, with a checkpoint \"step N\"\n      before each.\n    minimum: 1\n" +
	"    type: integer\n  wait:\n    default: 0\n    description: Seconds of Test's wait command after each step (0 for none).\n" +
	"    minimum: 0\n    type: number\ntitle: SlewTest v1\ntype: object\n\n"

// queue is the ScriptQueue's side: the built script in a folder of its
// own, a bus shared with it, a Remote of Script, and a Test CSC that
// records the setScalars commands it gets.
type queue struct {
	dir, file string
	bus       *sal.Bus
	script    *sal.Remote
	test      *sal.CSC

	mu     sync.Mutex
	int0s  []int32
	idents []string
}

func newQueue(t *testing.T, index int) *queue {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the script: not in -short mode")
	}
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		t.Skip("TS_XML_DIR is unset: the Script and Test components are only in ts_xml (e.g. TS_XML_DIR=../../../shared/ts_xml)")
	}
	defs, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	q := &queue{dir: t.TempDir(), file: "slew_test"}
	if out, err := exec.Command("go", "build", "-o", filepath.Join(q.dir, q.file), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	q.bus = saltest.Bus(t, sal.WithDefinitions(defs))
	ctx := ctxFor(t)
	q.test, err = q.bus.NewCSC("Test", TestIndex, sal.WithAllowMissing(), sal.WithEnabledCommands("setScalars", "wait"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.test.Close)
	q.test.HandleFunc("setScalars", func(ctx context.Context, cmd *sal.Command) error {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.int0s = append(q.int0s, cmd.Data["int0"].(int32))
		q.idents = append(q.idents, cmd.Identity)
		return nil
	})
	if err := q.test.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if q.script, err = q.bus.NewRemote(ctx, "Script", index); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.script.Close)
	return q
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// launch starts the script as the ScriptQueue does: by its file name, its
// folder first in PATH, the index its only argument, the bus from the
// environment.
func (q *queue) launch(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := &exec.Cmd{Path: filepath.Join(q.dir, q.file), Args: append([]string{q.file}, args...)}
	cfg := q.bus.Config()
	cmd.Env = append(os.Environ(), "PATH="+q.dir+string(os.PathListSeparator)+os.Getenv("PATH"),
		sal.EnvBroker+"="+strings.Join(cfg.Brokers, ","), sal.EnvRegistry+"="+cfg.RegistryURL, sal.EnvSubname+"="+cfg.Subname)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if cmd.ProcessState == nil && cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("script stderr:\n%s", stderr.String())
		}
	})
	return cmd
}

func (q *queue) until(t *testing.T, st sal.ScriptState) map[string]any {
	t.Helper()
	for {
		rec, err := q.script.MustEvent("state").Next(ctxFor(t))
		if err != nil {
			t.Fatalf("waiting for %s: %v", st.Name(), err)
		}
		if sal.ScriptState(rec["state"].(uint8)) == st {
			return rec
		}
	}
}

func (q *queue) command(t *testing.T, name string, params map[string]any) {
	t.Helper()
	if _, err := q.script.Command(ctxFor(t), name, params); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func (q *queue) steps() []int32 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.int0s)
}

// TestSlewTest_Schema: `slew_test 0 --schema`, as the ScriptQueue's
// showSchema runs it, prints the schema as a salobj script does.
func TestSlewTest_Schema(t *testing.T) {
	q := newQueue(t, 1)
	cmd := q.launch(t, "0", "--schema")
	out, err := cmd.Output()
	if err != nil || string(out) != wantSchema {
		t.Errorf("--schema: %v\n%q\nwant\n%q", err, out, wantSchema)
	}
}

// TestSlewTest_PauseResumeDone: launched with its index, the script
// reports UNCONFIGURED and its description (Test:1 among the remotes);
// configured to pause at "step 2", it enables Test, sends step 1, pauses;
// resumed, it sends steps 2 and 3 with the script's identity, ends DONE
// and exits 0.
func TestSlewTest_PauseResumeDone(t *testing.T) {
	index := 100001
	q := newQueue(t, index)
	cmd := q.launch(t, "100001")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	q.until(t, sal.ScriptUnconfigured)
	d, err := q.script.MustEvent("description").Next(ctxFor(t))
	if err != nil || d["classname"] != "SlewTest" || d["remotes"] != "Test:1" {
		t.Errorf("description %v, %v", d, err)
	}
	q.command(t, "configure", map[string]any{"config": "steps: 3", "pauseCheckpoint": "step 2", "blockId": "BL7"})
	if md, err := q.script.MustEvent("metadata").Next(ctxFor(t)); err != nil || md["totalCheckpoints"] != int32(3) || md["duration"] != 0.0 {
		t.Errorf("metadata %v, %v", md, err)
	}
	q.command(t, "setGroupId", map[string]any{"groupId": "2026-01-01T00:00:00.000"})
	if _, err := q.script.StartCommand(ctxFor(t), "run", nil); err != nil {
		t.Fatal(err)
	}
	if rec := q.until(t, sal.ScriptPaused); rec["lastCheckpoint"] != "step 2" || rec["numCheckpoints"] != int32(2) {
		t.Errorf("paused at %v (%v checkpoints), want step 2 (2)", rec["lastCheckpoint"], rec["numCheckpoints"])
	}
	if got := q.steps(); !slices.Equal(got, []int32{1}) || q.test.State() != sal.Enabled {
		t.Errorf("paused after steps %v, Test %s; want [1], ENABLED", got, q.test.State().Name())
	}
	q.command(t, "resume", nil)
	q.until(t, sal.ScriptDone)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v, want 0", err)
	}
	if got := q.steps(); !slices.Equal(got, []int32{1, 2, 3}) {
		t.Errorf("steps %v, want [1 2 3]", got)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, id := range q.idents {
		if id != "Script:100001" {
			t.Errorf("setScalars sent as %q, want Script:100001", id)
		}
	}
}

// TestSlewTest_StopCheckpoint: configured to stop at "step 2", the script
// sends step 1 only, ends STOPPED and exits 0.
func TestSlewTest_StopCheckpoint(t *testing.T) {
	q := newQueue(t, 100002)
	cmd := q.launch(t, "100002")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	q.until(t, sal.ScriptUnconfigured)
	q.command(t, "configure", map[string]any{"config": "", "stopCheckpoint": "step 2"})
	q.command(t, "setGroupId", map[string]any{"groupId": "g"})
	q.command(t, "run", nil)
	q.until(t, sal.ScriptStopped)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v, want 0", err)
	}
	if got := q.steps(); !slices.Equal(got, []int32{1}) {
		t.Errorf("steps %v, want [1]", got)
	}
}
