package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/wirefixture"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
	salxml "github.com/lsst-sal/salgo/xml"
)

// step is one step of the fixture's scenario: the records of its time
// window (lines of records.jsonl).
type step struct {
	n     int
	name  string
	lines []int
}

// scenarioSteps reads the steps of scenario.md and the record lines each holds.
func scenarioSteps(t *testing.T) []step {
	t.Helper()
	f, err := os.Open(filepath.Join(wirefixture.Dir(t), "scenario.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := regexp.MustCompile(`^## (\d+)\. (\S+)`)
	row := regexp.MustCompile(`^\| (\d+) \| `)
	var steps []step
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if m := head.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			steps = append(steps, step{n: n, name: m[2]})
		} else if m := row.FindStringSubmatch(sc.Text()); m != nil && len(steps) > 0 {
			l, _ := strconv.Atoi(m[1])
			steps[len(steps)-1].lines = append(steps[len(steps)-1].lines, l)
		}
	}
	if len(steps) != 18 {
		t.Fatalf("scenario.md: %d steps, want 18", len(steps))
	}
	return steps
}

// written is one record a CSC wrote, as the test compares it.
type written struct {
	topic  string // SAL name
	snd    float64
	fields map[string]any // data fields, normalised (see norm)
}

// Fields that vary per run or per implementation, as the fixture's README
// says (stamps, seqNums of the Remote, origins, paths, versions, the CSC
// version, the source of log records).
var varying = map[string]bool{
	"private_sndStamp": true, "private_rcvStamp": true, "private_efdStamp": true, "private_kafkaStamp": true,
	"private_origin": true, "private_identity": true, "private_seqNum": true, "private_revCode": true,
	"origin": true, "identity": true, "url": true, "version": true, "cscVersion": true,
	"filePath": true, "functionName": true, "lineNumber": true, "process": true, "traceback": true,
}

// norm turns decoded values (the fixture's JSON or hamba's generic types)
// into comparable ones: integers int64, floats their bits as float64 (NaN
// canonical), strings, booleans, slices.
func norm(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case string:
		switch x {
		case "NaN":
			return math.NaN()
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		case "-0.0":
			return math.Copysign(0, -1)
		}
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case float32:
		return float64(x)
	case float64:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e)
		}
		return out
	}
	return v
}

func sameNorm(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			if i, ok := b.(int64); ok {
				return x == float64(i)
			}
			return false
		}
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	case int64:
		if y, ok := b.(float64); ok {
			return float64(x) == y
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameNorm(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// describe renders a record for failure messages.
func (w written) String() string {
	keys := make([]string, 0, len(w.fields))
	for k := range w.fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(w.topic + "(")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%v", k, w.fields[k])
	}
	return b.String() + ")"
}

// TestScenario_AsTsSalobj drives the Go TestCsc through the scenario the
// fixture captured from ts_salobj 8.2.12 (scenario.md) and checks that it
// writes, at start and at each step, the same topics in the same write
// order (private_sndStamp; logMessage, written asynchronously by both,
// compared as a set), with the same content and acks, but for what the
// fixture's README says varies per run.
func TestScenario_AsTsSalobj(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole CSC session: not in -short mode")
	}
	xmlDir := wirefixture.XMLDir(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git, to give the configuration folder a version as in the capture")
	}
	steps := scenarioSteps(t)
	recs := wirefixture.Records(t)
	byLine := map[int]*wirefixture.Record{}
	bySeq := map[int64]*wirefixture.Record{} // the commands, by seqNum
	var cscOrigin int64
	for i := range recs {
		r := &recs[i]
		byLine[r.Line] = r
		if r.SALName() == "logevent_summaryState" {
			cscOrigin = r.Int(t, "private_origin")
		}
		if strings.HasPrefix(r.SALName(), "command_") {
			bySeq[r.Int(t, "private_seqNum")] = r
		}
	}

	// The capture's configuration: Test/v2/_init.yaml in a git repository.
	pkg := t.TempDir()
	v2 := filepath.Join(pkg, "Test", "v2")
	if err := os.MkdirAll(v2, 0o755); err != nil {
		t.Fatal(err)
	}
	init, err := os.ReadFile(wirefixture.Shared(t, "ts_config_ocs", "Test", "v2", "_init.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v2, "_init.yaml"), init, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "config"}} {
		if out, err := exec.Command("git", append([]string{"-C", pkg}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Setenv("TS_CONFIG_OCS_DIR", pkg)
	t.Setenv("LSST_SITE", "test")

	defs, err := salxml.Open(xmlDir)
	if err != nil {
		t.Fatal(err)
	}
	b := saltest.Bus(t, sal.WithDefinitions(defs), sal.WithUnboundedStrings()) // the Remote sends what a Python Remote sends
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	comp, err := defs.Component("Test")
	if err != nil {
		t.Fatal(err)
	}

	rec := newRecorder(t, b, comp)
	csc, err := New(b, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rec.start(ctx)
	r, err := b.NewRemote(ctx, "Test", 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	compared := 0
	for _, st := range steps {
		var want []written
		var commands []*wirefixture.Record
		for _, l := range st.lines {
			fr := byLine[l]
			if fr.SALName() == "logevent_heartbeat" {
				continue
			}
			if strings.HasPrefix(fr.SALName(), "command_") || fr.Int(t, "private_origin") != cscOrigin {
				continue
			}
			// A step's command is the one its final ack answers (its own
			// record may be in the window before, by Kafka timestamp).
			if fr.SALName() == "ackcmd" && fr.Int(t, "ack") != 301 {
				commands = append(commands, bySeq[fr.Int(t, "private_seqNum")])
			}
			w := written{topic: fr.SALName(), fields: map[string]any{}}
			for _, f := range fr.Decoded {
				if f.Name == "private_sndStamp" {
					w.snd, _ = norm(f.Value).(float64)
				}
				if !varying[f.Name] {
					w.fields[f.Name] = norm(f.Value)
				}
			}
			want = append(want, w)
		}
		for _, c := range commands {
			params := map[string]any{}
			for _, f := range c.Decoded {
				if !strings.HasPrefix(f.Name, "private_") && f.Name != "salIndex" {
					params[f.Name] = commandValue(f.Value)
				}
			}
			f, err := r.StartCommand(ctx, strings.TrimPrefix(c.SALName(), "command_"), params)
			if err != nil {
				t.Fatalf("step %d %s: %v", st.n, st.name, err)
			}
			if _, err := f.Wait(ctx); err != nil && !strings.Contains(st.name, "in_") {
				t.Errorf("step %d %s: %v", st.n, st.name, err)
			}
			if st.name == "exitControl" {
				<-csc.Done()
			}
		}
		got := rec.step(ctx, t)
		compareStep(t, st, want, got)
		compared += len(want)
	}
	// Every record the CSC wrote but its heartbeats: 85 less 18 heartbeats
	// and 16 commands.
	if compared != 51 {
		t.Errorf("compared %d of the CSC's records, want all 51", compared)
	}
}

// commandValue is a fixture value as a Remote sends it.
func commandValue(v any) any {
	switch x := norm(v).(type) {
	case []any:
		out := make([]float64, len(x))
		ints := make([]int64, len(x))
		isInt := true
		for i, e := range x {
			switch y := e.(type) {
			case int64:
				ints[i], out[i] = y, float64(y)
			case float64:
				isInt = false
				out[i] = y
			default:
				bs := make([]bool, len(x))
				for j, e := range x {
					bs[j], _ = e.(bool)
				}
				return bs
			}
		}
		if isInt {
			return ints
		}
		return out
	default:
		return x
	}
}

// compareStep checks the CSC's records of one step against the fixture's.
func compareStep(t *testing.T, st step, want, got []written) {
	t.Helper()
	split := func(ws []written) (order []written, logs []string) {
		sort.SliceStable(ws, func(i, j int) bool { return ws[i].snd < ws[j].snd })
		for _, w := range ws {
			if w.topic == "logevent_logMessage" {
				logs = append(logs, fmt.Sprintf("%v %v %v", w.fields["level"], w.fields["name"], w.fields["message"]))
				continue
			}
			order = append(order, w)
		}
		slices.Sort(logs)
		return order, logs
	}
	wo, wl := split(want)
	go_, gl := split(got)
	topics := func(ws []written) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = w.topic
		}
		return out
	}
	if !slices.Equal(topics(wo), topics(go_)) {
		t.Errorf("step %d %s: the CSC wrote %v; ts_salobj wrote %v", st.n, st.name, topics(go_), topics(wo))
		return
	}
	for i := range wo {
		for k, v := range wo[i].fields {
			if g, ok := go_[i].fields[k]; !ok || !sameNorm(v, g) {
				t.Errorf("step %d %s: %s.%s = %#v; ts_salobj wrote %#v", st.n, st.name, wo[i].topic, k, g, v)
			}
		}
	}
	if !slices.Equal(wl, gl) {
		t.Errorf("step %d %s: logMessages %q; ts_salobj wrote %q", st.n, st.name, gl, wl)
	}
}

// recorder reads every topic of a component from its beginning, records
// what the CSC wrote, and hands the records out step by step.
type recorder struct {
	b      *sal.Bus
	comp   *salxml.Component
	names  []string
	mu     sync.Mutex
	got    []written
	seen   map[string]int64 // topic -> next offset read
	next   int              // records handed out so far
	err    error            // why Tap returned
	cancel context.CancelFunc
	done   chan struct{}
}

func newRecorder(t *testing.T, b *sal.Bus, comp *salxml.Component) *recorder {
	rc := &recorder{b: b, comp: comp, seen: map[string]int64{}, done: make(chan struct{})}
	for _, tp := range comp.Topics {
		rc.names = append(rc.names, tp.KafkaName(b.Config().Subname))
	}
	t.Cleanup(func() {
		if rc.cancel != nil {
			rc.cancel()
			<-rc.done
		}
	})
	return rc
}

// start begins reading; the topics exist once the CSC has started.
func (rc *recorder) start(ctx context.Context) {
	ctx, rc.cancel = context.WithCancel(ctx)
	go func() {
		defer close(rc.done)
		err := rc.b.Tap(ctx, rc.names, 1<<20, func(tr sal.TapRecord) {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			rc.seen[tr.Topic] = tr.Offset + 1
			if tr.Value == nil || strings.HasSuffix(tr.Topic, ".logevent_heartbeat") || strings.Contains(tr.Topic, ".command_") {
				return
			}
			w := written{topic: tr.Topic[strings.LastIndexByte(tr.Topic, '.')+1:], fields: map[string]any{}}
			for k, v := range tr.Value {
				if k == "private_sndStamp" {
					w.snd, _ = norm(v).(float64)
				}
				if !varying[k] {
					w.fields[k] = norm(v)
				}
			}
			rc.got = append(rc.got, w)
		})
		rc.mu.Lock()
		rc.err = err
		rc.mu.Unlock()
	}()
}

// step waits until everything the bus wrote has been read, and returns
// the records since the last step.
func (rc *recorder) step(ctx context.Context, t *testing.T) []written {
	t.Helper()
	if err := rc.b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(rc.b.Config().Brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, rc.names...)
	if err != nil {
		t.Fatal(err)
	}
	for {
		behind := false
		rc.mu.Lock()
		ends.Each(func(o kadm.ListedOffset) {
			if o.Offset > 0 && rc.seen[o.Topic] < o.Offset {
				behind = true
			}
		})
		rc.mu.Unlock()
		if !behind {
			break
		}
		rc.mu.Lock()
		tapErr := rc.err
		rc.mu.Unlock()
		if tapErr != nil {
			t.Fatalf("the recorder stopped: %v", tapErr)
		}
		select {
		case <-ctx.Done():
			rc.mu.Lock()
			t.Logf("read up to %v", rc.seen)
			rc.mu.Unlock()
			ends.Each(func(o kadm.ListedOffset) { t.Logf("end %s %d", o.Topic, o.Offset) })
			t.Fatal("the recorder never caught up")
		case <-time.After(5 * time.Millisecond):
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := slices.Clone(rc.got[rc.next:])
	rc.next = len(rc.got)
	return out
}
