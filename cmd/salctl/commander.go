package main

// commander: an interactive shell that commands one CSC and prints its
// events (and, on demand, its telemetry) as they arrive, as ts_salobj's
// CSC commander does.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/cmd/salctl/internal/lineedit"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

const commanderHelp = `Reads commands, one a line, and prints what comes back. A CSC command is given
with its fields as
  NAME VALUE...            in the XML field order (help NAME lists them), or
  NAME FIELD=VALUE...      in any order, after the positional ones if any, or
  NAME {"FIELD": VALUE}    a JSON object, as the command verb takes it;
fields left out take their defaults. Values are parsed per field type: true or
false, whole numbers (0x hex), numbers with NaN, Inf and -Inf, strings (quote
them with ' or " when they hold spaces), arrays as 1,2,3 or [1,2,3], and the
names of an enumerated field's values (mode=Tracking). A bad value is an error
naming the field. Each acknowledgement is printed as it arrives, with its time,
the command's name and seqNum, and its code's name:
  12:00:01.300 start #41: ack 303 (CMD_COMPLETE), error 0, result "Done"
and after a state transition (start, enable, disable, standby, exitControl)
the command ends when the CSC's summaryState event is seen.
Shell commands: help [NAME], filter [+NAME|-NAME...], show NAME, history,
exit (also quit, or end of input). Lines starting with # are comments.

On a terminal each command runs as soon as it is typed, while earlier ones
are still waited for (stopMotion during a long move, resume for a paused
script whose run is pending), and its acks and errors are printed as they
come, tagged NAME #SEQNUM. Ctrl-C interrupts every command in flight (stops
waiting for it: the CSC may still finish it) and keeps what is typed on the
line; with none in flight it clears the line and says how to quit. exit (or
Ctrl-D) with commands in flight waits for them and says so; exit again, or
exit!, leaves at once, interrupting them; Ctrl-C interrupts them and leaves.
Otherwise (a pipe or a file) each line of stdin runs in turn, after the one
before it ended, and is echoed after "> ", for scripts.

Events are printed as they arrive, heartbeat excepted; telemetry is not
printed until asked for (filter +telemetry, filter +NAME), and then only when
a value changes beyond 2 decimals (the timestamp field aside), as the CSC
commander does:
  12:00:01.250 evt summaryState: summaryState=2 (ENABLED)
  12:00:01.300 tel status: timestamp=..., temperature=[...], mode=2 (Tracking)
(the time is the sample's private_sndStamp, UTC; the events' history at the
start is printed in the order it was sent). filter takes event and telemetry
names (bare, evt_x or tel_x) and the groups events, telemetry and all:
"filter -all +summaryState" shows only summaryState.

The banner (on stderr) tells whether the CSC runs, from its heartbeat:
"heartbeat seen 0.4 s ago", or "no heartbeat seen in 2s: is the CSC running?"
(waited for up to 2 s; 6 s for a SAL script, which writes one every 5 s), or
"newest heartbeat 12s old: is the CSC running?" (older than 3 intervals).

On a terminal, lines are edited with the arrow keys, the session's lines come
back with up and down, and Tab completes command names, field names and
enumerated values (-plain: no editing; Ctrl-C still interrupts the commands in
flight). The exit status is 1 if any line failed (a refused or interrupted
command, a timeout, a bad value, an unknown name); with -e the commander stops
at the first that fails, as sh -e. -timeout (> 0) bounds each command; each
CMD_INPROGRESS ack extends it. On the in-process bus a built-in CSC answers.`

func cmdCommander(e *env, args []string) error {
	fs := flags(e, "commander")
	timeout := fs.Duration("timeout", time.Minute, "time allowed for each command (each CMD_INPROGRESS ack extends it)")
	stop := fs.Bool("e", false, "stop at the first line that fails (exit status 1), as sh -e")
	filter := fs.String("filter", "", `initial filter of what is printed, as the filter command takes it, e.g. "+telemetry -logMessage"`)
	plain := fs.Bool("plain", false, "read plain lines even from a terminal (no editing, history keys or completion)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 1, 1, "COMPONENT[:INDEX]")
	if err != nil {
		return err
	}
	if err := positiveTimeout(*timeout); err != nil {
		return err
	}
	c, idx, hasIdx, err := parseInstance(defs, pos[0])
	if err != nil {
		return err
	}
	if err := requireIndex(c, hasIdx); err != nil {
		return err
	}
	cm := newCommander(c, idx, *timeout)
	if err := cm.filter(strings.Fields(*filter)); err != nil {
		return cli.Usagef("-filter: %v", err)
	}
	bus, err := connect(e, "commander", defs, *verbose, fmt.Sprintf("a built-in CSC %s answers", c.NameIndex(idx)))
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	if bus.Embedded() {
		csc, err := demoCSC(ctx, bus, c, idx)
		if err != nil {
			return err
		}
		defer csc.Close()
	}
	r, err := bus.NewRemote(ctx, c.Name, idx)
	if err != nil {
		return err
	}
	defer r.Close()
	cm.remote = r

	// On a terminal each line runs at once, on its own goroutine; from a
	// pipe or a file the lines run in turn, as a script.
	var in lineedit.Reader
	terminal := isTerminal(e.stdin)
	if tr, ok := e.stdin.(lineedit.Reader); ok {
		// A terminal of the caller's (a test's): read as one.
		in, terminal = tr, true
	} else if terminal && !*plain && isTerminal(e.stdout) {
		if in, err = lineedit.NewTerminal(c.NameIndex(idx)+"> ", cm.complete); err != nil {
			return err
		}
	} else {
		stdin := e.stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		in = lineedit.NewPlain(stdin, e.stdout)
	}
	defer in.Close()
	cm.out = in.Output()
	cm.echo = !terminal
	fmt.Fprintf(e.stderr, "salctl commander: %s on %s, %s; %d commands, %d events, %d telemetry topics; %s; help lists the commands\n",
		r.Name(), busName(bus), cm.liveness(ctx), len(r.CommandNames()), len(r.EventNames()), len(r.TelemetryNames()), cm.filterSummary())
	if err := cm.subscribe(); err != nil {
		return err
	}
	defer cm.unsubscribe()
	return cm.loop(e.ctx, in, terminal, *stop)
}

// liveness says whether the CSC is running, from its heartbeat: waits
// for one if none was seen yet (up to an interval and a second), and
// calls one older than 3 intervals (heartbeatBoundOf) stale.
func (cm *commander) liveness(ctx context.Context) string {
	interval := heartbeatInterval(cm.comp)
	wait := interval + time.Second
	if hb, err := cm.remote.Event("heartbeat"); err == nil {
		wctx, cancel := context.WithTimeout(ctx, wait)
		hb.Await(wctx)
		cancel()
	}
	age, ok := cm.remote.HeartbeatAge()
	switch {
	case !ok:
		return fmt.Sprintf("no heartbeat seen in %s: is the CSC running?", wait)
	case age > heartbeatBoundOf(cm.comp):
		return fmt.Sprintf("newest heartbeat %s old: is the CSC running?", age.Round(time.Second))
	}
	return fmt.Sprintf("heartbeat seen %.1f s ago", age.Seconds())
}

func busName(bus *sal.Bus) string {
	if bus.Embedded() {
		return "the in-process bus"
	}
	return strings.Join(bus.Config().Brokers, ",")
}

// commander is one session.
type commander struct {
	comp    *salxml.Component
	name    string // COMPONENT:INDEX
	remote  *sal.Remote
	enums   *cli.Enums
	timeout time.Duration
	echo    bool // print each line read, after "> "

	mu      sync.Mutex // guards what follows, and writes to out
	out     io.Writer
	shown   map[string]bool   // "evt_x", "tel_x": printed
	lastTel map[string]string // telemetry: the values last printed, rounded
	history []string
	jobs    []*job        // the commands in flight, in the order sent
	states  int           // summaryState samples received
	stateCh chan struct{} // closed, and replaced, at each one

	taiOffset float64 // TAI minus Unix time, seconds
	readers   []*sal.Reader
}

func newCommander(c *salxml.Component, idx int, timeout time.Duration) *commander {
	cm := &commander{
		comp: c, name: c.NameIndex(idx), enums: cli.NewEnums(c), timeout: timeout, out: io.Discard,
		shown: map[string]bool{}, lastTel: map[string]string{}, stateCh: make(chan struct{}),
		taiOffset: sal.TAI() - float64(time.Now().UnixNano())/1e9,
	}
	for _, t := range c.TopicsOf(salxml.Event) {
		cm.shown[t.AttrName()] = t.Name() != "heartbeat"
	}
	for _, t := range c.TopicsOf(salxml.Telemetry) {
		cm.shown[t.AttrName()] = false
	}
	return cm
}

// printf writes a line (or lines) to the output.
func (cm *commander) printf(format string, args ...any) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	fmt.Fprintf(cm.out, format, args...)
}

// subscribe prints the samples of every event and telemetry topic as they
// arrive. What is queued already (the events' late-joiner history) is
// printed first, in the order it was sent (private_sndStamp; the order
// of the topics for equal stamps).
func (cm *commander) subscribe() error {
	type queued struct {
		t   *salxml.Topic
		rec map[string]any
	}
	var history []queued
	var topics []*salxml.Topic
	for _, kind := range []salxml.Kind{salxml.Event, salxml.Telemetry} {
		for _, t := range cm.comp.TopicsOf(kind) {
			var rd *sal.Reader
			var err error
			if kind == salxml.Event {
				rd, err = cm.remote.Event(t.Name())
			} else {
				rd, err = cm.remote.Telemetry(t.Name())
			}
			if err != nil {
				return err
			}
			for rec := rd.TryNext(); rec != nil; rec = rd.TryNext() {
				history = append(history, queued{t, rec})
			}
			cm.readers = append(cm.readers, rd)
			topics = append(topics, t)
		}
	}
	slices.SortStableFunc(history, func(a, b queued) int {
		sa, _ := a.rec["private_sndStamp"].(float64)
		sb, _ := b.rec["private_sndStamp"].(float64)
		return cmp.Compare(sa, sb)
	})
	for _, q := range history {
		cm.sample(q.t, q.rec)
	}
	// What came meanwhile is delivered first.
	for i, rd := range cm.readers {
		t := topics[i]
		rd.SetCallback(func(rec map[string]any) { cm.sample(t, rec) })
	}
	return nil
}

func (cm *commander) unsubscribe() {
	for _, rd := range cm.readers {
		rd.SetCallback(nil)
	}
}

// sample prints one sample, if the filter shows its topic.
func (cm *commander) sample(t *salxml.Topic, rec map[string]any) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if t.Kind == salxml.Event && t.Name() == "summaryState" {
		cm.states++
		close(cm.stateCh)
		cm.stateCh = make(chan struct{})
	}
	if !cm.shown[t.AttrName()] {
		return
	}
	if t.Kind == salxml.Telemetry {
		key := cm.roundedValues(t, rec)
		if cm.lastTel[t.Name()] == key {
			return
		}
		cm.lastTel[t.Name()] = key
	}
	kind := "evt"
	if t.Kind == salxml.Telemetry {
		kind = "tel"
	}
	fmt.Fprintf(cm.out, "%s %s %s: %s\n", cm.stamp(rec), kind, t.Name(), cm.format(t, rec))
}

// stamp is the sample's private_sndStamp as a UTC time of day.
func (cm *commander) stamp(rec map[string]any) string {
	snd, ok := rec["private_sndStamp"].(float64)
	if !ok {
		return "--:--:--.---"
	}
	return time.Unix(0, int64((snd-cm.taiOffset)*1e9)).UTC().Format("15:04:05.000")
}

// format renders the public fields of a sample: name=value, enumerated
// values with their names; logMessage only with its name, level, message
// (and traceback, if any).
func (cm *commander) format(t *salxml.Topic, rec map[string]any) string {
	var parts []string
	for _, f := range t.UserFields() {
		if t.Name() == "logMessage" && t.Kind == salxml.Event {
			if !slices.Contains([]string{"name", "level", "message", "traceback"}, f.Name) {
				continue
			}
			if s, _ := rec[f.Name].(string); f.Name == "traceback" && s == "" {
				continue
			}
		}
		parts = append(parts, f.Name+"="+cm.enums.Label(t.SALName, f.Name, rec[f.Name]))
	}
	return strings.Join(parts, ", ")
}

// roundedValues is what decides whether telemetry changed: the public
// fields but timestamp, floats to 2 decimals.
func (cm *commander) roundedValues(t *salxml.Topic, rec map[string]any) string {
	var b strings.Builder
	round := func(v any) string {
		switch x := v.(type) {
		case float32:
			return strconv.FormatFloat(float64(x), 'f', 2, 32)
		case float64:
			return strconv.FormatFloat(x, 'f', 2, 64)
		case []float32:
			var s []string
			for _, e := range x {
				s = append(s, strconv.FormatFloat(float64(e), 'f', 2, 32))
			}
			return strings.Join(s, ",")
		case []float64:
			var s []string
			for _, e := range x {
				s = append(s, strconv.FormatFloat(e, 'f', 2, 64))
			}
			return strings.Join(s, ",")
		}
		return fmt.Sprint(v)
	}
	for _, f := range t.UserFields() {
		if f.Name != "timestamp" {
			b.WriteString(round(rec[f.Name]))
			b.WriteByte(';')
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------
// The loop.

type lineResult struct {
	line string
	err  error
}

// job is a CSC command on its way: sent, and waited for on a goroutine
// of its own.
type job struct {
	n      int // the line's number
	line   string
	cancel context.CancelFunc

	mu  sync.Mutex
	tag string // NAME #SEQNUM once sent, NAME before
	err error  // how it ended
}

func (j *job) name() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.tag
}

// loop reads and runs lines until exit or the end of the input. On a
// terminal (concurrent) the next line is read while commands run, each
// on a goroutine of its own; otherwise each line ends before the next is
// read. loop returns only when every command it started has ended.
func (cm *commander) loop(ctx context.Context, in lineedit.Reader, concurrent, stopOnError bool) error {
	var failed, lines, pending int
	jobsCtx, cancelJobs := context.WithCancel(ctx)
	ended := make(chan *job)
	account := func(j *job) {
		pending--
		if j.err != nil {
			failed++
		}
	}
	defer func() {
		// Nothing outlives the loop: what still runs is interrupted,
		// and waited for.
		cancelJobs()
		for pending > 0 {
			account(<-ended)
		}
	}()
	if concurrent {
		defer cli.TrapInterrupt(func() {
			if cm.interrupt() == 0 {
				cm.printf("(exit or Ctrl-D quits)\n")
			}
		})()
	}
	reads := make(chan lineResult, 1)
	reading, exiting, more := false, false, true // more: the input may have more lines
	for n := 0; ; {
		if exiting && pending == 0 {
			in.Close() // ends a read in progress
			return cm.result(failed, lines)
		}
		// One read at a time, and none while a script's line runs: a
		// terminal editor draws its prompt, and takes Ctrl-C, while it
		// reads.
		if !reading && more && (concurrent || pending == 0) {
			reading = true
			go func() {
				l, err := in.ReadLine()
				reads <- lineResult{l, err}
			}()
		}
		var lr lineResult
		select {
		case lr = <-reads:
			reading = false
		case j := <-ended:
			account(j)
			if j.err != nil && stopOnError {
				in.Close()
				return fmt.Errorf("line %d failed (-e): %s", j.n, j.line)
			}
			continue
		case <-ctx.Done():
			in.Close()
			return ctx.Err()
		}
		switch {
		case errors.Is(lr.err, lineedit.ErrInterrupt):
			// Ctrl-C interrupts the commands in flight, and leaves a
			// line partly typed in the editor; with none, it clears
			// the line.
			if cm.interrupt() == 0 {
				cm.printf("(exit or Ctrl-D quits)\n")
			} else if d, ok := in.(interface{ SetDefault(string) }); ok && lr.line != "" {
				d.SetDefault(lr.line)
			}
			continue
		case errors.Is(lr.err, io.EOF):
			if pending > 0 {
				cm.printf("end of input: waiting for %s; Ctrl-C interrupts\n", cm.inFlight())
			}
			exiting, more = true, false
			continue
		case lr.err != nil:
			return lr.err
		}
		n++
		line := strings.TrimSpace(lr.line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cm.echo {
			cm.printf("> %s\n", line)
		}
		cm.mu.Lock()
		cm.history = append(cm.history, line)
		cm.mu.Unlock()
		lines++
		name, _, _ := strings.Cut(line, " ")
		switch {
		case name == "exit!" || (name == "exit" || name == "quit") && (exiting || pending == 0):
			if k := cm.interrupt(); k > 0 {
				cm.printf("leaving %d command(s) unfinished\n", k)
			}
			exiting = true
			continue
		case name == "exit" || name == "quit":
			cm.printf("exit: waiting for %s; exit again (or exit!) leaves at once, Ctrl-C interrupts\n", cm.inFlight())
			exiting = true
			continue
		case exiting:
			cm.printf("error: exiting, waiting for %s: exit! leaves at once, Ctrl-C interrupts\n", cm.inFlight())
			failed++
			continue
		}
		send, err := cm.run(line)
		if err == nil && send != nil {
			jctx, cancel := context.WithCancel(jobsCtx)
			j := &job{n: n, line: line, cancel: cancel, tag: send.t.Name()}
			cm.mu.Lock()
			cm.jobs = append(cm.jobs, j)
			cm.mu.Unlock()
			pending++
			go cm.runJob(ctx, jctx, j, send, ended)
			continue
		}
		if err != nil {
			failed++
			cm.printf("error: %v\n", err)
			if stopOnError {
				return fmt.Errorf("line %d failed (-e): %s", n, line)
			}
		}
	}
}

// runJob sends a command and waits for it, then tells ended.
func (cm *commander) runJob(ctx, jctx context.Context, j *job, s *sendArgs, ended chan<- *job) {
	err := cm.send(jctx, j, s.t, s.params)
	interrupted := jctx.Err() != nil && ctx.Err() == nil
	j.cancel()
	cm.mu.Lock()
	cm.jobs = slices.DeleteFunc(cm.jobs, func(x *job) bool { return x == j })
	cm.mu.Unlock()
	if err != nil {
		if interrupted {
			cm.printf("interrupted: %s: %v\n", j.name(), err)
		} else {
			cm.printf("error: %s: %v\n", j.name(), err)
		}
	}
	j.err = err
	ended <- j
}

// interrupt stops waiting for the commands in flight; it returns how
// many there were.
func (cm *commander) interrupt() int {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	for _, j := range cm.jobs {
		j.cancel()
	}
	return len(cm.jobs)
}

// inFlight names the commands in flight: "2 commands (wait #3, move #4)".
func (cm *commander) inFlight() string {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	var names []string
	for _, j := range cm.jobs {
		names = append(names, j.name())
	}
	what := "1 command"
	if len(names) != 1 {
		what = fmt.Sprintf("%d commands", len(names))
	}
	return what + " (" + strings.Join(names, ", ") + ")"
}

func (cm *commander) result(failed, lines int) error {
	if failed > 0 {
		return fmt.Errorf("%d of %d lines failed", failed, lines)
	}
	return nil
}

// builtins are the shell's own commands, with their help.
var builtins = []struct{ name, args, help string }{
	{"help", "[NAME]", "this help, or the fields of a command, event or telemetry topic"},
	{"filter", "[+NAME|-NAME...]", "show (+) or hide (-) events and telemetry: NAME, events, telemetry, all; alone: what is shown"},
	{"show", "NAME", "print the newest sample of an event or telemetry topic"},
	{"history", "", "the lines run in this session"},
	{"exit", "", "leave (also quit, or end of input) once the commands in flight end; exit! (or exit again) leaves at once; the CSC keeps running"},
}

// sendArgs is a CSC command to send.
type sendArgs struct {
	t      *salxml.Topic
	params map[string]any
}

// run runs a shell command, or parses a CSC command and returns it, to
// be sent.
func (cm *commander) run(line string) (*sendArgs, error) {
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "help", "filter", "show", "history":
		words, err := splitWords(rest)
		if err != nil {
			return nil, err
		}
		switch name {
		case "help":
			return nil, cm.help(words)
		case "filter":
			if err := cm.filter(words); err != nil {
				return nil, err
			}
			cm.printf("%s\n", cm.filterSummary())
			return nil, nil
		case "show":
			return nil, cm.show(words)
		default:
			cm.mu.Lock()
			for i, h := range cm.history {
				fmt.Fprintf(cm.out, "%5d  %s\n", i+1, h)
			}
			cm.mu.Unlock()
			return nil, nil
		}
	}
	t, err := cm.command(name)
	if err != nil {
		return nil, err
	}
	params, err := cm.params(t, rest)
	if err != nil {
		return nil, err
	}
	return &sendArgs{t, params}, nil
}

// command finds a command by name (bare, cmd_x or command_x).
func (cm *commander) command(name string) (*salxml.Topic, error) {
	if t := cm.comp.Command(bareCommand(name)); t != nil {
		return t, nil
	}
	cands := cm.comp.CommandNames()
	for _, b := range builtins {
		cands = append(cands, b.name)
	}
	if cl := salxml.Closest(name, cands); len(cl) > 0 {
		return nil, fmt.Errorf("%s has no command %q (did you mean %s?)", cm.comp.Name, name, strings.Join(cl, ", "))
	}
	return nil, fmt.Errorf("%s has no command %q; help lists them", cm.comp.Name, name)
}

// params parses a command's arguments (see commanderHelp).
func (cm *commander) params(t *salxml.Topic, rest string) (map[string]any, error) {
	if strings.HasPrefix(rest, "{") {
		m, err := parseJSONObject(rest)
		if err != nil {
			return nil, err
		}
		cli.JSONFloats(t, m)
		return m, nil
	}
	words, err := splitWords(rest)
	if err != nil {
		return nil, err
	}
	return cli.FieldArgs(t, cm.enums, words)
}

// transitions' commands: after one completes, the commander waits for
// the summaryState it causes.
var transitionCommands = []string{"start", "enable", "disable", "standby", "exitControl"}

// send sends a command and prints each ack until the final one, after
// the command's name and seqNum (j's tag).
func (cm *commander) send(ctx context.Context, j *job, t *salxml.Topic, params map[string]any) error {
	name := t.Name()
	cm.mu.Lock()
	states, stateCh := cm.states, cm.stateCh
	cm.mu.Unlock()
	f, err := cm.remote.StartCommand(ctx, name, params, remote.WithTimeout(cm.timeout))
	if err != nil {
		return fieldHints(t, err)
	}
	tag := fmt.Sprintf("%s #%d", name, f.SeqNum())
	j.mu.Lock()
	j.tag = tag
	j.mu.Unlock()
	for final := false; !final; {
		ack, err := f.Next(ctx)
		if ack != nil && (err == nil || errors.As(err, new(*sal.AckError))) {
			cm.printf("%s %s: %s\n", cm.stamp(ack.Record), tag, cli.FormatAck(ack))
		}
		var te *sal.TimeoutError
		var ae *sal.AckError
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("stopped waiting; the CSC may still finish it")
		case errors.As(err, &ae):
			return errors.New(ae.Ack.Code.String())
		case errors.As(err, &te):
			return fmt.Errorf("no final acknowledgement within %s (is %s running?)", cm.timeout, cm.name)
		case err != nil:
			return err
		case ack.Code.Failed():
			return errors.New(ack.Code.String())
		}
		final = ack.Code.Final()
	}
	if !slices.Contains(transitionCommands, name) {
		return nil
	}
	// The CSC reports its new state before it acks: wait for it, so that
	// a script reads on with the state printed.
	wctx, cancel := context.WithTimeout(ctx, cm.timeout)
	defer cancel()
	for {
		cm.mu.Lock()
		seen := cm.states > states
		cm.mu.Unlock()
		if seen {
			return nil
		}
		select {
		case <-stateCh:
			cm.mu.Lock()
			stateCh = cm.stateCh
			cm.mu.Unlock()
		case <-wctx.Done():
			cm.printf("%s: no summaryState seen within %s after it completed\n", tag, cm.timeout)
			return nil
		}
	}
}

// ---------------------------------------------------------------------
// filter, show, help

// topicsNamed resolves a filter or show name: an event or telemetry topic
// (bare name, evt_x, tel_x, logevent_x; both when an event and a telemetry
// topic share a bare name), or a group.
func (cm *commander) topicsNamed(name string, groups bool) ([]*salxml.Topic, error) {
	var out []*salxml.Topic
	for _, t := range cm.comp.Topics {
		if t.Kind != salxml.Event && t.Kind != salxml.Telemetry {
			continue
		}
		switch {
		case groups && name == "all",
			groups && name == "events" && t.Kind == salxml.Event,
			groups && name == "telemetry" && t.Kind == salxml.Telemetry,
			name == t.Name() || name == t.AttrName() || name == t.SALName:
			out = append(out, t)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	cands := cm.topicNames()
	if groups {
		cands = append(cands, "all", "events", "telemetry")
	}
	if cl := salxml.Closest(name, cands); len(cl) > 0 {
		return nil, fmt.Errorf("%s has no event or telemetry topic %q (did you mean %s?)", cm.comp.Name, name, strings.Join(cl, ", "))
	}
	return nil, fmt.Errorf("%s has no event or telemetry topic %q", cm.comp.Name, name)
}

// topicNames are the bare and attribute names of the events and telemetry.
func (cm *commander) topicNames() []string {
	var out []string
	for _, t := range cm.comp.Topics {
		if t.Kind == salxml.Event || t.Kind == salxml.Telemetry {
			out = append(out, t.Name(), t.AttrName())
		}
	}
	return out
}

// filter applies +NAME and -NAME words in order.
func (cm *commander) filter(words []string) error {
	changes := map[string]bool{}
	var order []string
	for _, w := range words {
		on := true
		switch {
		case strings.HasPrefix(w, "+"):
			w = w[1:]
		case strings.HasPrefix(w, "-"):
			on, w = false, w[1:]
		default:
			return fmt.Errorf("filter %q: want +NAME to show a topic or -NAME to hide it (NAME: a topic, events, telemetry or all)", w)
		}
		ts, err := cm.topicsNamed(w, true)
		if err != nil {
			return err
		}
		for _, t := range ts {
			changes[t.AttrName()] = on
			order = append(order, t.AttrName())
		}
	}
	cm.mu.Lock()
	defer cm.mu.Unlock()
	for _, a := range order {
		cm.shown[a] = changes[a]
		if !changes[a] {
			delete(cm.lastTel, strings.TrimPrefix(a, "tel_"))
		}
	}
	return nil
}

// filterSummary says what is shown.
func (cm *commander) filterSummary() string {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	part := func(kind salxml.Kind, what string) string {
		var on, off []string
		for _, t := range cm.comp.TopicsOf(kind) {
			if cm.shown[t.AttrName()] {
				on = append(on, t.Name())
			} else {
				off = append(off, t.Name())
			}
		}
		switch {
		case len(off) == 0:
			return "all " + what + " shown"
		case len(on) == 0:
			return what + " hidden"
		case len(on) <= len(off):
			return what + " shown: " + strings.Join(on, " ")
		}
		return what + " shown except " + strings.Join(off, " ")
	}
	return part(salxml.Event, "events") + "; " + part(salxml.Telemetry, "telemetry")
}

func (cm *commander) show(words []string) error {
	if len(words) != 1 {
		return fmt.Errorf("show takes one event or telemetry name")
	}
	ts, err := cm.topicsNamed(words[0], false)
	if err != nil {
		return err
	}
	for _, t := range ts {
		var rd *sal.Reader
		if t.Kind == salxml.Event {
			rd, err = cm.remote.Event(t.Name())
		} else {
			rd, err = cm.remote.Telemetry(t.Name())
		}
		if err != nil {
			return err
		}
		rec := rd.Get()
		kind := map[salxml.Kind]string{salxml.Event: "evt", salxml.Telemetry: "tel"}[t.Kind]
		if rec == nil {
			cm.printf("%s %s: no sample yet\n", kind, t.Name())
			continue
		}
		cm.printf("%s %s %s: %s\n", cm.stamp(rec), kind, t.Name(), cm.format(t, rec))
	}
	return nil
}

func (cm *commander) help(words []string) error {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	w := cm.out
	if len(words) == 0 {
		fmt.Fprintf(w, "Commands of %s (help NAME for a command's fields, with their types and units):\n", cm.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range cm.comp.TopicsOf(salxml.Command) {
			fmt.Fprintf(tw, "  %s\t%s\n", t.Name(), oneLine(t.Description, 90))
		}
		tw.Flush()
		fmt.Fprintln(w, "Shell commands:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, b := range builtins {
			fmt.Fprintf(tw, "  %s %s\t%s\n", b.name, b.args, b.help)
		}
		tw.Flush()
		fmt.Fprintln(w, `Fields: NAME VALUE... in field order, or NAME FIELD=VALUE...; arrays as 1,2,3 or [1,2,3];`)
		fmt.Fprintln(w, `NaN, Inf, -Inf; enumerated values by name; "quoted strings"; fields left out take their defaults.`)
		fmt.Fprintln(w, `On a terminal a command runs as soon as it is typed, its acks tagged NAME #SEQNUM; Ctrl-C interrupts`)
		fmt.Fprintln(w, `the commands in flight; exit waits for them (and says so), exit! or a second exit leaves at once.`)
		return nil
	}
	if len(words) > 1 {
		return fmt.Errorf("help takes one name, got %d", len(words))
	}
	name := words[0]
	for _, b := range builtins {
		if b.name == name {
			fmt.Fprintf(w, "%s %s: %s\n", b.name, b.args, b.help)
			return nil
		}
	}
	var ts []*salxml.Topic
	if t := cm.comp.Command(bareCommand(name)); t != nil {
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		var err error
		if ts, err = cm.topicsNamed(name, false); err != nil {
			cands := append(cm.comp.CommandNames(), cm.topicNames()...)
			if cl := salxml.Closest(name, cands); len(cl) > 0 {
				return fmt.Errorf("%s has no command or topic %q (did you mean %s?)", cm.comp.Name, name, strings.Join(cl, ", "))
			}
			return fmt.Errorf("%s has no command or topic %q; help lists the commands", cm.comp.Name, name)
		}
	}
	for _, t := range ts {
		fmt.Fprintf(w, "%s (%s): %s\n", t.Name(), t.Kind, oneLine(t.Description, 200))
		fields := t.UserFields()
		if len(fields) == 0 {
			fmt.Fprintln(w, "  no fields")
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range fields {
			typ := f.Type.String()
			if f.IsArray() {
				typ += "[" + strconv.Itoa(f.Count) + "]"
			} else if f.Type == salxml.String && f.MaxLen() > 0 {
				typ += "<" + strconv.Itoa(f.MaxLen()) + ">"
			}
			units := f.Units
			if units == "" {
				units = "-"
			}
			desc := oneLine(f.Description, 90)
			if en := cm.enums.Field(t.SALName, f.Name); en != nil {
				desc += " [" + strings.Join(en.Names(), ", ") + "]"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, typ, units, desc)
		}
		tw.Flush()
		if t.Kind == salxml.Command && len(fields) > 0 {
			var upper []string
			for _, f := range fields {
				upper = append(upper, strings.ToUpper(f.Name))
			}
			fmt.Fprintf(w, "usage: %s %s\n   or: %s %s=VALUE ...\n", t.Name(), strings.Join(upper, " "), t.Name(), fields[0].Name)
		}
	}
	return nil
}

// ---------------------------------------------------------------------
// Completion and words.

// complete returns the candidates for the word being typed at the end of
// line (see lineedit.Completer).
func (cm *commander) complete(line string) []string {
	words := strings.Fields(line)
	current := ""
	if len(words) > 0 && !strings.HasSuffix(line, " ") {
		current = words[len(words)-1]
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		var out []string
		for _, n := range cm.comp.CommandNames() {
			out = append(out, n+" ")
		}
		for _, b := range builtins {
			out = append(out, b.name+" ")
		}
		return out
	}
	switch words[0] {
	case "help":
		out := slices.Clone(cm.comp.CommandNames())
		for _, t := range cm.comp.Topics {
			if t.Kind == salxml.Event || t.Kind == salxml.Telemetry {
				out = append(out, t.Name())
			}
		}
		return out
	case "show":
		return cm.topicNames()
	case "filter":
		var out []string
		for _, n := range append([]string{"all", "events", "telemetry"}, cm.topicNames()...) {
			out = append(out, "+"+n, "-"+n)
		}
		return out
	}
	t := cm.comp.Command(bareCommand(words[0]))
	if t == nil {
		return nil
	}
	given := map[string]bool{}
	for _, w := range words[1:] {
		if k, _, ok := strings.Cut(w, "="); ok {
			given[k] = true
		}
	}
	if k, _, ok := strings.Cut(current, "="); ok {
		// A value: the names of an enumeration, or true/false.
		f := t.Field(k)
		if f == nil {
			return nil
		}
		var vals []string
		if en := cm.enums.Field(t.SALName, f.Name); en != nil {
			for _, e := range en.Entries {
				vals = append(vals, e.Name)
			}
		} else if f.Type == salxml.Boolean {
			vals = []string{"true", "false"}
		}
		var out []string
		for _, v := range vals {
			out = append(out, k+"="+v+" ")
		}
		return out
	}
	var out []string
	for _, f := range t.UserFields() {
		if !given[f.Name] {
			out = append(out, f.Name+"=")
		}
	}
	return out
}

// splitWords splits a line into words as a shell does: spaces separate
// them, 'single quotes' keep everything, "double quotes" keep everything
// but \" and \\, and a backslash outside quotes keeps the next character.
func splitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			inWord = true
		default:
			b.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}
