package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/lineedit"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

func exampleComponent(t *testing.T) *salxml.Component {
	t.Helper()
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`a  b`, []string{"a", "b"}},
		{`string0="hi there" x`, []string{"string0=hi there", "x"}},
		{`'a "b"' c\ d`, []string{`a "b"`, "c d"}},
		{`"say \"hi\""`, []string{`say "hi"`}},
		{`""`, []string{""}},
		{``, nil},
	} {
		got, err := splitWords(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`"open`, `'open`} {
		if _, err := splitWords(in); err == nil || !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("splitWords(%q): %v, want unterminated", in, err)
		}
	}
}

// TestCommanderParams parses command arguments positionally, by name, as
// JSON, with arrays, NaN and enumeration names, and names the field in
// each error.
func TestCommanderParams(t *testing.T) {
	c := exampleComponent(t)
	cm := newCommander(c, 1, time.Second)
	set := c.Command("setScalars")
	m, err := cm.params(set, `true 7 -3 int0=0x10 string0="a b" double0=NaN float0=-inf`)
	if err != nil {
		t.Fatal(err)
	}
	if m["boolean0"] != true || m["byte0"] != uint8(7) || m["short0"] != int16(-3) || m["int0"] != int32(16) || m["string0"] != "a b" ||
		!math.IsNaN(m["double0"].(float64)) || !math.IsInf(float64(m["float0"].(float32)), -1) || len(m) != 7 {
		t.Errorf("setScalars params %#v", m)
	}
	arr, err := cm.params(c.Command("setArrays"), `double0=[1,2,NaN,Inf,-Inf] int0=1,2,3,4,5 boolean0=t,f,1,0,true`)
	if err != nil {
		t.Fatal(err)
	}
	d := arr["double0"].([]float64)
	if len(d) != 5 || d[1] != 2 || !math.IsNaN(d[2]) || !math.IsInf(d[4], -1) || !slices.Equal(arr["int0"].([]int32), []int32{1, 2, 3, 4, 5}) ||
		!slices.Equal(arr["boolean0"].([]bool), []bool{true, false, true, false, true}) {
		t.Errorf("setArrays params %#v", arr)
	}
	js, err := cm.params(set, `{"int0": 5, "double0": "Infinity"}`)
	if err != nil || js["int0"] == nil || !math.IsInf(js["double0"].(float64), 1) {
		t.Errorf("JSON params %#v, %v", js, err)
	}
	lvl, err := cm.params(c.Command("setLogLevel"), `level=debug`)
	if err != nil || lvl["level"] != int32(10) {
		t.Errorf("setLogLevel level=debug: %#v, %v; want the value of DEBUG, 10", lvl, err)
	}
	for _, bad := range []struct{ args, want string }{
		{`int0=abc`, `field int0: "abc" is not an int (a whole number from -2147483648 to 2147483647)`},
		{`byte0=256`, `field byte0: "256" is not a byte`},
		{`maybe`, `field boolean0: "maybe" is not a boolean`},
		{`int00=1`, `setScalars has no field "int00" (did you mean int0?)`},
		{`int0=1 int0=2`, `field int0 given twice`},
		{`int0=1 true`, `"true" after FIELD=VALUE arguments`},
		{`1 2 3 4 5 6 7 8 9 10 s extra`, `setScalars takes 11 values`},
		{`float0=x`, `field float0: "x" is not a float (a number, NaN, Inf or -Inf)`},
	} {
		if _, err := cm.params(set, bad.args); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("params(setScalars %s): %v, want %q", bad.args, err, bad.want)
		}
	}
	if _, err := cm.params(c.Command("setArrays"), `int0=1,2`); err == nil || !strings.Contains(err.Error(), "field int0: want 5 values (int[5], comma separated), got 2") {
		t.Errorf("short array: %v", err)
	}
}

func TestCommanderComplete(t *testing.T) {
	cm := newCommander(exampleComponent(t), 1, time.Second)
	for _, c := range []struct {
		line    string
		has     []string
		hasNone []string
	}{
		{"", []string{"start ", "setScalars ", "help ", "filter "}, nil},
		{"sta", []string{"start ", "standby "}, nil},
		{"setScalars ", []string{"int0=", "string0="}, []string{"salIndex="}},
		{"setScalars int0=3 in", []string{"unsignedInt0="}, []string{"int0="}},
		{"setScalars boolean0=", []string{"boolean0=true ", "boolean0=false "}, nil},
		{"setLogLevel level=", []string{"level=DEBUG ", "level=WARNING "}, nil},
		{"filter ", []string{"+telemetry", "-heartbeat", "+summaryState", "+tel_status"}, nil},
		{"help ", []string{"setScalars", "summaryState"}, nil},
		{"nosuch ", nil, []string{"int0="}},
	} {
		got := cm.complete(c.line)
		for _, h := range c.has {
			if !slices.Contains(got, h) {
				t.Errorf("complete(%q) = %q, lacks %q", c.line, got, h)
			}
		}
		for _, h := range c.hasNone {
			if slices.Contains(got, h) {
				t.Errorf("complete(%q) = %q, has %q", c.line, got, h)
			}
		}
	}
}

func TestCommanderFilter(t *testing.T) {
	cm := newCommander(exampleComponent(t), 1, time.Second)
	if got := cm.filterSummary(); got != "events shown except heartbeat; telemetry hidden" {
		t.Errorf("default filter: %q", got)
	}
	if err := cm.filter([]string{"-all", "+summaryState", "+tel_status"}); err != nil {
		t.Fatal(err)
	}
	if got := cm.filterSummary(); got != "events shown: summaryState; telemetry shown: status" {
		t.Errorf("after -all +summaryState +tel_status: %q", got)
	}
	// scalars is both an event and a telemetry topic: a bare name is both.
	if err := cm.filter([]string{"+scalars"}); err != nil || !cm.shown["evt_scalars"] || !cm.shown["tel_scalars"] {
		t.Errorf("+scalars: %v, shown %v", err, cm.shown)
	}
	for _, bad := range []struct{ w, want string }{
		{"summaryState", "want +NAME"},
		{"+summarystate", "did you mean summaryState"},
	} {
		if err := cm.filter([]string{bad.w}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("filter %s: %v, want %q", bad.w, err, bad.want)
		}
	}
}

// TestCommanderScript drives the commander from a script on the
// in-process bus, against its built-in CSC: the state transitions with
// their summaryState events, a command with fields, a refused command,
// and the exit status.
func TestCommanderScript(t *testing.T) {
	t.Setenv("TS_XML_DIR", "")
	t.Setenv("LSST_KAFKA_BROKER_ADDR", "")
	os.Unsetenv("LSST_KAFKA_BROKER_ADDR") // unset (empty is an error): the in-process bus
	script := strings.Join([]string{
		"# a comment",
		"start",
		"enable",
		`setScalars int0=3 string0="from the script" double0=NaN`,
		"start",
		"exit",
		"never run",
	}, "\n")
	var out, errs syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e := &env{ctx: ctx, stdin: strings.NewReader(script), stdout: &out, stderr: &errs}
	err := run(e, []string{"commander", "Example:1", "-timeout", "20s"})
	if err == nil || err.Error() != "1 of 5 lines failed" {
		t.Errorf("run: %v, want 1 of 5 lines failed (the start in ENABLED)", err)
	}
	got := out.String()
	for _, re := range []string{
		`(?m)^\d\d:\d\d:\d\d\.\d{3} evt summaryState: summaryState=5 \(STANDBY\)\n(?s:.*)^> start$`,
		`(?m)^> start\n(?s:.*)^\d\d:\d\d:\d\d\.\d{3} start #\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`,
		`(?m)^> start\n(?s:.*)evt summaryState: summaryState=1 \(DISABLED\)\n(?s:.*)^> enable$`,
		`(?m)^> enable\n(?s:.*)evt summaryState: summaryState=2 \(ENABLED\)\n(?s:.*)^> setScalars`,
		`(?m)^> setScalars int0=3 string0="from the script" double0=NaN\n[\d:.]+ setScalars #\d+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`,
		`(?m)^> start\n[\d:.]+ start #(\d+): ack -302 \(CMD_FAILED\), error 1, result "Failed: start not allowed in state <State.ENABLED: 2>"\nerror: start #\d+: CMD_FAILED\n> exit\n$`,
	} {
		if !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("no match for %s\n%s", re, got)
		}
	}
	// The history printed at the start is in the order it was sent.
	stamps := regexp.MustCompile(`(?m)^(\d\d:\d\d:\d\d\.\d{3}) evt `).FindAllStringSubmatch(got[:strings.Index(got, "> start")], -1)
	if len(stamps) < 3 || !slices.IsSortedFunc(stamps, func(a, b []string) int { return strings.Compare(a[1], b[1]) }) {
		t.Errorf("the events' history is not printed in time order\n%s", got)
	}
	if !strings.Contains(errs.String(), "heartbeat seen ") {
		t.Errorf("the banner does not say when a heartbeat was seen: %s", errs.String())
	}
	if strings.Contains(got, "never run") || strings.Contains(got, "heartbeat") {
		t.Errorf("the line after exit ran, or a heartbeat was printed\n%s", got)
	}

	// -e stops at the first failure.
	out, errs = syncBuffer{}, syncBuffer{}
	e = &env{ctx: ctx, stdin: strings.NewReader("enable\nstart\n"), stdout: &out, stderr: &errs}
	err = run(e, []string{"commander", "Example:1", "-e", "-filter", "-all"})
	if err == nil || !strings.Contains(err.Error(), "line 1 failed (-e): enable") || strings.Contains(out.String(), "> start") {
		t.Errorf("-e: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "evt ") {
		t.Errorf("-filter -all printed events\n%s", out.String())
	}
}

// fakeTerminal is the line editor on a terminal, for a test: each line
// sent on typed is typed and entered, ctrlC types Ctrl-C over a partly
// typed line. It is the commander's stdin (see cmdCommander).
type fakeTerminal struct {
	typed  chan typedLine
	out    *watchBuffer
	closed chan struct{}
	once   sync.Once

	mu      sync.Mutex
	prefill string // what the commander put back in the editor
}

type typedLine struct {
	line  string
	ctrlC bool
}

func newFakeTerminal() *fakeTerminal {
	return &fakeTerminal{typed: make(chan typedLine, 16), out: newWatchBuffer(), closed: make(chan struct{})}
}

func (f *fakeTerminal) Read([]byte) (int, error) { return 0, io.EOF }

func (f *fakeTerminal) ReadLine() (string, error) {
	select {
	case l := <-f.typed:
		if l.ctrlC {
			return l.line, lineedit.ErrInterrupt
		}
		return l.line, nil
	case <-f.closed:
		return "", io.EOF
	}
}

func (f *fakeTerminal) SetDefault(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prefill = s
}

func (f *fakeTerminal) Output() io.Writer { return f.out }

func (f *fakeTerminal) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

func (f *fakeTerminal) typeLine(line string) { f.typed <- typedLine{line: line} }

// watchBuffer is a syncBuffer that tells when it is written to.
type watchBuffer struct {
	syncBuffer
	mu      sync.Mutex
	changed chan struct{}
}

func newWatchBuffer() *watchBuffer { return &watchBuffer{changed: make(chan struct{})} }

func (w *watchBuffer) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	w.mu.Lock()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	return n, err
}

// waitFor waits (30 s at most) until the output matches re.
func (w *watchBuffer) waitFor(t *testing.T, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(30 * time.Second)
	for {
		w.mu.Lock()
		ch := w.changed
		w.mu.Unlock()
		if rx.MatchString(w.String()) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("no %s in the output within 30 s:\n%s", re, w.String())
		}
	}
}

// startTerminalCommander runs salctl commander Example:1 on the
// in-process bus, reading the fake terminal; the channel gets run's error.
func startTerminalCommander(t *testing.T, args ...string) (*fakeTerminal, *watchBuffer, func() error) {
	t.Helper()
	t.Setenv("TS_XML_DIR", "")
	t.Setenv("LSST_KAFKA_BROKER_ADDR", "")
	os.Unsetenv("LSST_KAFKA_BROKER_ADDR")
	term := newFakeTerminal()
	errs := newWatchBuffer()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	done := make(chan struct{})
	var runErr error
	go func() {
		defer close(done)
		defer cancel()
		e := &env{ctx: ctx, stdin: term, stdout: term.out, stderr: errs}
		runErr = run(e, append([]string{"commander", "Example:1", "-filter", "-all"}, args...))
	}()
	t.Cleanup(func() {
		term.Close()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Error("the commander did not end within a minute of its terminal closing")
		}
	})
	wait := func() error {
		select {
		case <-done:
			return runErr
		case <-time.After(time.Minute):
			t.Fatalf("the commander did not end within a minute\n%s", term.out.String())
			return nil
		}
	}
	return term, errs, wait
}

// enableExample types start and enable, each after the other completed.
func enableExample(t *testing.T, term *fakeTerminal) {
	t.Helper()
	term.typeLine("start")
	term.out.waitFor(t, `(?m)start\b[^:\n]*: ack 303`)
	term.typeLine("enable")
	term.out.waitFor(t, `(?m)enable\b[^:\n]*: ack 303`)
}

// completions lists the commands whose final ack (CMD_COMPLETE) the
// output has, in its order.
func completions(out string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^(?:[\d:.]+ )?(\w+)(?: #\d+)?: ack 303 `).FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestCommanderConcurrent types, on a terminal, wait duration=8 and, once
// it is in progress, setScalars: setScalars is sent at once and completes
// first (issue 30). (Eight seconds: setScalars's round trips must fit in
// the wait however loaded the machine.)
func TestCommanderConcurrent(t *testing.T) {
	term, _, wait := startTerminalCommander(t)
	enableExample(t, term)
	term.typeLine("wait duration=8")
	term.out.waitFor(t, `(?m)wait\b[^:\n]*: ack 301 \(CMD_INPROGRESS\)`)
	term.typeLine("setScalars int0=1")
	term.out.waitFor(t, `(?m)setScalars\b[^:\n]*: ack 303`)
	term.out.waitFor(t, `(?m)wait\b[^:\n]*: ack 303`)
	got := completions(term.out.String())
	if want := []string{"start", "enable", "setScalars", "wait"}; !slices.Equal(got, want) {
		t.Fatalf("commands completed in the order %q, want %q\n%s", got, want, term.out.String())
	}
	// Each ack names its command and its seqNum.
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} wait #\d+: ack 301 \(CMD_INPROGRESS\), error 0, result "salctl-demo: waiting", timeout 8s$`).MatchString(term.out.String()) {
		t.Errorf("no tagged in-progress ack of wait\n%s", term.out.String())
	}
	term.typeLine("exit")
	if err := wait(); err != nil {
		t.Errorf("run: %v", err)
	}
}

func (f *fakeTerminal) ctrlC(partial string) { f.typed <- typedLine{line: partial, ctrlC: true} }

func (f *fakeTerminal) defaultLine() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.prefill
}

// TestCommanderInterrupt: Ctrl-C interrupts the commands in flight only:
// the commander reads on, the line being typed is kept, and a command
// typed after runs; with none in flight Ctrl-C says how to quit.
func TestCommanderInterrupt(t *testing.T) {
	term, _, wait := startTerminalCommander(t)
	enableExample(t, term)
	term.typeLine("wait duration=60")
	term.out.waitFor(t, `(?m)wait #\d+: ack 301 \(CMD_INPROGRESS\)`)
	term.ctrlC("setScalars int0=")
	term.out.waitFor(t, `(?m)^interrupted: wait #\d+: stopped waiting; the CSC may still finish it$`)
	if got := term.defaultLine(); got != "setScalars int0=" {
		t.Errorf("after Ctrl-C the editor holds %q, want the line typed, setScalars int0=", got)
	}
	term.typeLine("setScalars int0=2")
	term.out.waitFor(t, `(?m)setScalars #\d+: ack 303`)
	term.ctrlC("")
	term.out.waitFor(t, `(?m)^\(exit or Ctrl-D quits\)$`)
	term.typeLine("exit")
	// The interrupted command counts as a failed line.
	if err := wait(); err == nil || err.Error() != "1 of 5 lines failed" {
		t.Errorf("run: %v, want 1 of 5 lines failed\n%s", err, term.out.String())
	}
}

// TestCommanderExitWaits: exit with a command in flight waits for it
// and says so; a command typed meanwhile is refused.
func TestCommanderExitWaits(t *testing.T) {
	term, _, wait := startTerminalCommander(t)
	enableExample(t, term)
	term.typeLine("wait duration=5") // long enough to type behind it
	term.out.waitFor(t, `(?m)wait #\d+: ack 301 \(CMD_INPROGRESS\)`)
	term.typeLine("exit")
	term.out.waitFor(t, `(?m)^exit: waiting for 1 command \(wait #\d+\); exit again \(or exit!\) leaves at once, Ctrl-C interrupts$`)
	term.typeLine("setScalars")
	term.out.waitFor(t, `(?m)^error: exiting, waiting for 1 command \(wait #\d+\): exit! leaves at once, Ctrl-C interrupts$`)
	err := wait()
	if err == nil || err.Error() != "1 of 5 lines failed" {
		t.Errorf("run: %v, want 1 of 5 lines failed (the setScalars refused)", err)
	}
	if got := completions(term.out.String()); !slices.Equal(got, []string{"start", "enable", "wait"}) {
		t.Errorf("completed %q, want the wait too\n%s", got, term.out.String())
	}
}

// TestCommanderExitAbandons: a second exit (or exit!) leaves at once,
// interrupting what is in flight; end of input waits as exit does.
func TestCommanderExitAbandons(t *testing.T) {
	for _, exits := range [][]string{{"exit", "exit"}, {"exit!"}} {
		term, _, wait := startTerminalCommander(t)
		enableExample(t, term)
		term.typeLine("wait duration=60")
		term.out.waitFor(t, `(?m)wait #\d+: ack 301 \(CMD_INPROGRESS\)`)
		for _, l := range exits {
			term.typeLine(l)
		}
		err := wait()
		out := term.out.String()
		if err == nil || !regexp.MustCompile(`(?m)^leaving 1 command\(s\) unfinished\n(?s:.*)^interrupted: wait #\d+: stopped waiting`).MatchString(out) {
			t.Errorf("%q: run %v\n%s", exits, err, out)
		}
	}
	term, _, wait := startTerminalCommander(t)
	enableExample(t, term)
	term.typeLine("wait duration=5") // long enough to type behind it
	term.out.waitFor(t, `(?m)wait #\d+: ack 301 \(CMD_INPROGRESS\)`)
	term.Close() // Ctrl-D
	if err := wait(); err != nil || !strings.Contains(term.out.String(), "end of input: waiting for 1 command (wait #") {
		t.Errorf("end of input: %v\n%s", err, term.out.String())
	}
	if got := completions(term.out.String()); !slices.Equal(got, []string{"start", "enable", "wait"}) {
		t.Errorf("completed %q, want the wait too", got)
	}
}

// TestCommanderScriptResume: a SAL script paused at a checkpoint while
// its run command is pending is resumed from the same commander: resume
// is sent at once and completes, then run does (issue 30).
func TestCommanderScriptResume(t *testing.T) {
	defs := sal.EmbeddedDefinitions() // with a Script component
	if dir := os.Getenv(salxml.EnvDir); dir != "" {
		var err error
		if defs, err = salxml.Open(dir); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	broker, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithDefinitions(defs),
		sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	const index = 100007
	script, err := broker.NewScript(index, sal.ScriptSpec{
		Name: "PauseTest",
		Run:  func(ctx context.Context, s *sal.Script) error { return s.Checkpoint(ctx, "one") },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer script.Close()
	if err := script.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Setenv(topics.EnvBroker, strings.Join(broker.Config().Brokers, ","))
	t.Setenv(topics.EnvRegistry, broker.Config().RegistryURL)
	t.Setenv(topics.EnvSubname, broker.Config().Subname)

	term := newFakeTerminal()
	var errs syncBuffer
	done := make(chan error, 1)
	go func() {
		e := &env{ctx: ctx, stdin: term, stdout: term.out, stderr: &errs}
		done <- run(e, []string{"commander", fmt.Sprintf("Script:%d", index), "-filter", "-all +state"})
	}()
	defer func() {
		cancel()
		term.Close()
		<-done
	}()
	term.typeLine(`configure config="" pauseCheckpoint=one`)
	term.out.waitFor(t, `(?m)configure #\d+: ack 303`)
	term.typeLine("setGroupId groupId=g1")
	term.out.waitFor(t, `(?m)setGroupId #\d+: ack 303`)
	term.typeLine("run")
	term.out.waitFor(t, `(?m)evt state: state=4 \(Paused\)`)
	term.typeLine("resume")
	term.out.waitFor(t, `(?m)resume #\d+: ack 303`)
	term.out.waitFor(t, `(?m)run #\d+: ack 303`)
	// The script resumes (Running after Paused) and run ends only then
	// (resume's ack and run's come together, in either order; the state
	// DONE and run's ack too).
	if !regexp.MustCompile(`(?m)state=4 \(Paused\)(?s:.*)state=3 \(Running\)(?s:.*)^[\d:.]+ run #\d+: ack 303`).MatchString(term.out.String()) {
		t.Errorf("the script did not pause, then resume, before run completed\n%s", term.out.String())
	}
	if !strings.Contains(errs.String(), "heartbeat seen ") {
		t.Errorf("banner: %s", errs.String())
	}
	term.typeLine("exit")
	if err := <-done; err != nil {
		t.Errorf("run: %v\n%s", err, term.out.String())
	}
	done <- nil
}

// TestCommanderLivenessNoCSC: the banner of a commander of a CSC that is
// not running says so (issue 30).
func TestCommanderLivenessNoCSC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bus, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	r, err := bus.NewRemote(ctx, "Example", 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cm := newCommander(exampleComponent(t), 5, time.Second)
	cm.remote = r
	if got, want := cm.liveness(ctx), "no heartbeat seen in 2s: is the CSC running?"; got != want {
		t.Errorf("liveness %q, want %q", got, want)
	}
}
