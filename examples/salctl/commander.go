package main

// commander: an interactive shell that commands one CSC and prints its
// events (and, on demand, its telemetry) as they arrive, as ts_salobj's
// CSC commander does.

import (
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

	"github.com/lsst-sal/salgo/examples/internal/cli"
	"github.com/lsst-sal/salgo/examples/internal/lineedit"
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
naming the field. Each acknowledgement is printed with its code's name:
  start: ack 303 (CMD_COMPLETE), error 0, result "Done"
and after a state transition (start, enable, disable, standby, exitControl)
the commander waits for the CSC's summaryState event before reading on.
Shell commands: help [NAME], filter [+NAME|-NAME...], show NAME, history,
exit (also quit, or end of input). Lines starting with # are comments.

Events are printed as they arrive, heartbeat excepted; telemetry is not
printed until asked for (filter +telemetry, filter +NAME), and then only when
a value changes beyond 2 decimals (the timestamp field aside), as the CSC
commander does:
  12:00:01.250 evt summaryState: summaryState=2 (ENABLED)
  12:00:01.300 tel status: timestamp=..., temperature=[...], mode=2 (Tracking)
(the time is the sample's private_sndStamp, UTC). filter takes event and
telemetry names (bare, evt_x or tel_x) and the groups events, telemetry and
all: "filter -all +summaryState" shows only summaryState.

On a terminal, lines are edited with the arrow keys, the session's lines come
back with up and down, and Tab completes command names, field names and
enumerated values; Ctrl-C interrupts the command waited for (the CSC may still
finish it) or clears the line, Ctrl-D quits. Otherwise (a pipe, a file, or
-plain) each line of stdin is run in turn and echoed after "> ", for scripts.
The exit status is 1 if any line failed (a refused command, a timeout, a bad
value, an unknown name); with -e the commander stops at the first that fails,
as sh -e. -timeout (> 0) bounds each command; each CMD_INPROGRESS ack extends
it. On the in-process bus a built-in CSC answers.`

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

	var in lineedit.Reader
	interactive := !*plain && isTerminal(e.stdin) && isTerminal(e.stdout)
	if tr, ok := e.stdin.(lineedit.Reader); ok {
		// A terminal of the caller's (a test's): read as one.
		in, interactive = tr, true
	} else if interactive {
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
	cm.echo = !interactive
	fmt.Fprintf(e.stderr, "salctl commander: %s on %s: %d commands, %d events, %d telemetry topics; %s; help lists the commands\n",
		r.Name(), busName(bus), len(r.CommandNames()), len(r.EventNames()), len(r.TelemetryNames()), cm.filterSummary())
	if err := cm.subscribe(); err != nil {
		return err
	}
	defer cm.unsubscribe()
	return cm.loop(e.ctx, in, interactive, *stop)
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
// printed first, in the order of the topics, so that a script's output
// starts the same way every time.
func (cm *commander) subscribe() error {
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
				cm.sample(t, rec)
			}
			rd.SetCallback(func(rec map[string]any) { cm.sample(t, rec) })
			cm.readers = append(cm.readers, rd)
		}
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

// loop reads and runs lines until exit or the end of the input.
func (cm *commander) loop(ctx context.Context, in lineedit.Reader, interactive, stopOnError bool) error {
	var failed, lines int
	for n := 1; ; n++ {
		// One read at a time, and only when no command runs: a terminal
		// editor draws its prompt, and takes Ctrl-C, while it reads.
		ch := make(chan lineResult, 1)
		go func() {
			l, err := in.ReadLine()
			ch <- lineResult{l, err}
		}()
		var lr lineResult
		select {
		case lr = <-ch:
		case <-ctx.Done():
			in.Close()
			return ctx.Err()
		}
		switch {
		case errors.Is(lr.err, lineedit.ErrInterrupt):
			cm.printf("(exit or Ctrl-D quits)\n")
			continue
		case errors.Is(lr.err, io.EOF):
			return cm.result(failed, lines)
		case lr.err != nil:
			return lr.err
		}
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
		lctx, cancel := context.WithCancel(ctx)
		release := func() {}
		if interactive {
			release = cli.TrapInterrupt(cancel)
		}
		quit, err := cm.run(lctx, line)
		release()
		interrupted := lctx.Err() != nil && ctx.Err() == nil
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			failed++
			if interrupted {
				cm.printf("interrupted: %v\n", err)
			} else {
				cm.printf("error: %v\n", err)
			}
			if stopOnError {
				return fmt.Errorf("line %d failed (-e): %s", n, line)
			}
		}
		if quit {
			return cm.result(failed, lines)
		}
	}
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
	{"exit", "", "leave (also quit, or end of input); the CSC keeps running"},
}

func isBuiltin(name string) bool {
	return name == "quit" || slices.ContainsFunc(builtins, func(b struct{ name, args, help string }) bool { return b.name == name })
}

// run runs one line.
func (cm *commander) run(ctx context.Context, line string) (quit bool, err error) {
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "exit", "quit":
		return true, nil
	case "help", "filter", "show", "history":
		words, err := splitWords(rest)
		if err != nil {
			return false, err
		}
		switch name {
		case "help":
			return false, cm.help(words)
		case "filter":
			if err := cm.filter(words); err != nil {
				return false, err
			}
			cm.printf("%s\n", cm.filterSummary())
			return false, nil
		case "show":
			return false, cm.show(words)
		default:
			cm.mu.Lock()
			for i, h := range cm.history {
				fmt.Fprintf(cm.out, "%5d  %s\n", i+1, h)
			}
			cm.mu.Unlock()
			return false, nil
		}
	}
	t, err := cm.command(name)
	if err != nil {
		return false, err
	}
	params, err := cm.params(t, rest)
	if err != nil {
		return false, err
	}
	return false, cm.send(ctx, t, params)
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
	fields := t.UserFields()
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	m := map[string]any{}
	npos, keyed := 0, false
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && isIdent(k) {
			f := t.Field(k)
			if f == nil || f.Private {
				if cl := salxml.Closest(k, names); len(cl) > 0 {
					return nil, fmt.Errorf("%s has no field %q (did you mean %s?)", t.Name(), k, strings.Join(cl, ", "))
				}
				return nil, fmt.Errorf("%s has no field %q; its fields: %s", t.Name(), k, fieldList(names))
			}
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("field %s given twice", k)
			}
			val, err := cli.ParseValue(f, cm.enums.Field(t.SALName, f.Name), v)
			if err != nil {
				return nil, err
			}
			m[k], keyed = val, true
			continue
		}
		if keyed {
			return nil, fmt.Errorf("%q after FIELD=VALUE arguments: give the positional values first", w)
		}
		if npos >= len(fields) {
			return nil, fmt.Errorf("%s takes %d values (%s), got %d", t.Name(), len(fields), fieldList(names), len(words))
		}
		f := fields[npos]
		val, err := cli.ParseValue(f, cm.enums.Field(t.SALName, f.Name), w)
		if err != nil {
			return nil, err
		}
		m[f.Name] = val
		npos++
	}
	return m, nil
}

func fieldList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// transitions' commands: after one completes, the commander waits for
// the summaryState it causes.
var transitionCommands = []string{"start", "enable", "disable", "standby", "exitControl"}

// send sends a command and prints each ack until the final one.
func (cm *commander) send(ctx context.Context, t *salxml.Topic, params map[string]any) error {
	name := t.Name()
	cm.mu.Lock()
	states, stateCh := cm.states, cm.stateCh
	cm.mu.Unlock()
	f, err := cm.remote.StartCommand(ctx, name, params, sal.WithTimeout(cm.timeout))
	if err != nil {
		return fieldHints(t, err)
	}
	for final := false; !final; {
		ack, err := f.Next(ctx)
		if ack != nil && (err == nil || errors.As(err, new(*sal.AckError))) {
			cm.printf("%s: %s\n", name, cli.FormatAck(ack))
		}
		var te *sal.TimeoutError
		var ae *sal.AckError
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("stopped waiting for %s (seqNum %d); the CSC may still finish it", name, f.SeqNum())
		case errors.As(err, &ae):
			return fmt.Errorf("%s: %s", name, ae.Ack.Code)
		case errors.As(err, &te):
			return fmt.Errorf("%s: no final acknowledgement within %s (is %s running?)", name, cm.timeout, cm.name)
		case err != nil:
			return err
		case ack.Code.Failed():
			return fmt.Errorf("%s: %s", name, ack.Code)
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
			cm.printf("%s: no summaryState seen within %s after it completed\n", name, cm.timeout)
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
