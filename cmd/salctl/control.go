package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// parseJSONObject reads a JSON object of field values; numbers stay
// json.Number, which the SDK's validator converts exactly.
func parseJSONObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, cli.Usagef("%q is not a JSON object of field values: %v", s, err)
	}
	if dec.More() {
		return nil, cli.Usagef("%q: text after the JSON object", s)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// ---------------------------------------------------------------------
// pub

const pubHelp = `JSON is an object of the topic's fields, e.g. '{"int0": 3, "double0": 1.5}';
the fields left out take their defaults. NaN and infinities are given as the
strings "NaN", "Infinity" and "-Infinity" (as echo -json prints them), and the
private fields (salIndex, private_*) of a record printed by echo -json are
ignored, so that "salctl echo -json -n 1 T | jq -c .value" can be sent back.`

func cmdPub(e *env, args []string) error {
	fs := flags(e, "pub")
	index := fs.Int("index", 0, "SAL index written (if not given: 1 for an indexed component)")
	n := fs.Int("n", 1, "write the record this many times")
	rate := fs.Float64("rate", 1, "records per second when -n > 1")
	asJSON := fs.Bool("json", false, "print what was written as JSON lines")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 2, 3, "COMPONENT TOPIC [JSON]")
	if err != nil {
		return err
	}
	if *n < 1 || *rate <= 0 {
		return cli.Usagef("-n must be >= 1 and -rate > 0")
	}
	c, t, err := findComponentTopic(defs, pos[0], pos[1])
	if err != nil {
		return err
	}
	fields := map[string]any{}
	if len(pos) == 3 {
		if fields, err = parseJSONObject(pos[2]); err != nil {
			return err
		}
	}
	// What echo -json printed can be sent back: non-finite floats come as
	// strings, and the private fields are the writer's own.
	cli.JSONFloats(t, fields)
	var dropped []string
	for _, f := range t.Fields {
		if _, ok := fields[f.Name]; ok && f.Private {
			dropped = append(dropped, f.Name)
			delete(fields, f.Name)
		}
	}
	if len(dropped) > 0 {
		fmt.Fprintf(e.stderr, "salctl pub: ignoring %s: the SDK writes its own (use -index for the SAL index)\n", strings.Join(dropped, ", "))
	}
	// Check the fields before connecting; Write checks them again.
	if err := validate.For(t).Validate(maps.Clone(fields)); err != nil {
		return fieldHints(t, err)
	}
	idx := *index
	if !cli.IsSet(fs, "index") {
		idx = demoIndex(c, 0)
	}
	if err := c.CheckIndex(idx); err != nil {
		return cli.Usagef("-index %d: %v", idx, err)
	}
	bus, err := connect(e, "pub", defs, *verbose, "")
	if err != nil {
		return err
	}
	defer bus.Close()
	in, err := bus.NewInstance(c, idx, "")
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := in.Writer(t)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	if err := in.Start(ctx); err != nil {
		return err
	}
	kname := t.KafkaName(bus.Config().Subname)
	tick := time.NewTicker(time.Duration(float64(time.Second) / *rate))
	defer tick.Stop()
	for i := 0; i < *n; i++ {
		if i > 0 {
			select {
			case <-tick.C:
			case <-e.ctx.Done():
				return fmt.Errorf("interrupted after %d of %d records", i, *n)
			}
		}
		rec := maps.Clone(fields)
		res, err := w.Write(e.ctx, rec)
		if err != nil {
			return fieldHints(t, err)
		}
		if *asJSON {
			fmt.Fprintf(e.stdout, `{"topic":%q,"kafka_topic":%q,"partition":%d,"offset":%d,"latency_ms":%.3f,"data":%s}`+"\n",
				t.String(), kname, res.Partition, res.Offset, float64(res.Latency)/1e6, cli.FieldsJSON(t, rec))
			continue
		}
		idxs := ""
		if t.Indexed {
			idxs = fmt.Sprintf(" salIndex %d", idx)
		}
		fmt.Fprintf(e.stdout, "published %s%s seqNum %d to %s [%d] offset %d in %.2f ms\n",
			t, idxs, res.SeqNum, kname, res.Partition, res.Offset, float64(res.Latency)/1e6)
	}
	return nil
}

// ---------------------------------------------------------------------
// command

const commandHelp = `ARGS are the command's fields: a JSON object, e.g. '{"int0": 3}' (NaN and
infinities as "NaN", "Infinity", "-Infinity"), or words, as the commander
takes them: positional values in the order of the fields, then FIELD=VALUE
pairs (int0=3 double0=1.5 'string0=a b'; enumerated fields by name, arrays
comma separated). The fields left out take their defaults.

Each acknowledgement is printed as it comes, with its code's name:
  Example:1 start: ack 303 (CMD_COMPLETE), error 0, result "Done"
The command is sent only to a running CSC: one that writes a heartbeat
within 3 s (three heartbeat intervals; 15 s for a SAL script) of the Remote
starting; else salctl command fails at once with exit status 3, unless
-wait is given, which sends it anyway (with a warning) and waits for its
acks.

The exit status is 0 for CMD_COMPLETE, 1 for a failed final code or no final
ack within -timeout (which must be > 0; each CMD_INPROGRESS ack extends it),
3 for a CSC that is not running.`

// readsLittle makes a Remote that reads only summaryState and heartbeat
// (so that it can say when no CSC is running), or, for a component
// without them, its first event: commands need no readers.
func readsLittle(c *salxml.Component) sal.RemoteOption {
	if c.Event("summaryState") != nil && c.Event("heartbeat") != nil {
		return remote.WithInclude("summaryState", "heartbeat")
	}
	if c.Event("summaryState") != nil {
		return remote.WithInclude("summaryState")
	}
	for _, t := range c.Topics {
		if t.Kind == salxml.Event || t.Kind == salxml.Telemetry {
			return remote.WithInclude(t.Name())
		}
	}
	return remote.WithInclude()
}

// bareCommand accepts start, cmd_start or command_start.
func bareCommand(s string) string {
	s = strings.TrimPrefix(s, "cmd_")
	return strings.TrimPrefix(s, "command_")
}

func cmdCommand(e *env, args []string) error {
	fs := flags(e, "command")
	timeout := fs.Duration("timeout", time.Minute, "time allowed to start the Remote, then for the command (each CMD_INPROGRESS ack extends it)")
	asJSON := fs.Bool("json", false, "print each ack as a JSON line")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	wait := fs.Bool("wait", false, "send the command even if no heartbeat of the CSC is seen within 3 s, and wait for its acks")
	pos, defs, err := parseArgs(e, fs, args, 2, -1, "COMPONENT[:INDEX] NAME [ARGS]")
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
	name := bareCommand(pos[1])
	if c.Command(name) == nil {
		names := c.CommandNames()
		if cl := salxml.Closest(name, names); len(cl) > 0 {
			return cli.Usagef("%s has no command %q (did you mean %s?)", c.Name, name, strings.Join(cl, ", "))
		}
		return cli.Usagef("%s has no command %q; its commands: %s", c.Name, name, strings.Join(names, ", "))
	}
	params := map[string]any{}
	switch {
	case len(pos) == 3 && strings.HasPrefix(strings.TrimSpace(pos[2]), "{"):
		if params, err = parseJSONObject(pos[2]); err != nil {
			return err
		}
		cli.JSONFloats(c.Command(name), params)
	case len(pos) > 2:
		if params, err = cli.FieldArgs(c.Command(name), cli.NewEnums(c), pos[2:]); err != nil {
			return err
		}
	}
	bus, err := connect(e, "command", defs, *verbose, fmt.Sprintf("a built-in CSC %s answers", c.NameIndex(idx)))
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(e.ctx, *timeout+time.Minute)
	defer cancel()
	if bus.Embedded() {
		csc, err := demoCSC(ctx, bus, c, idx)
		if err != nil {
			return err
		}
		defer csc.Close()
	}
	r, err := startRemote(ctx, bus, c, idx, *timeout, readsLittle(c))
	if err != nil {
		return err
	}
	defer r.Close()
	if lv := awaitHeartbeats(ctx, r, c, []int32{int32(idx)}); !lv.alive(int32(idx)) {
		if !*wait {
			return cli.NotRunningError{Msg: lv.why(r.Name(), int32(idx)) + " (-wait sends the command anyway)"}
		}
		fmt.Fprintf(e.stderr, "salctl command: warning: %s; sending %s anyway (-wait)\n", lv.why(r.Name(), int32(idx)), name)
	}
	f, err := r.StartCommand(ctx, name, params, remote.WithTimeout(*timeout))
	if err != nil {
		return fieldHints(c.Command(name), err)
	}
	for {
		ack, err := f.Next(ctx)
		if ack != nil {
			printAck(e, r.Name(), name, ack, *asJSON)
		}
		var te *sal.TimeoutError
		var ae *sal.AckError
		switch {
		case errors.As(err, &ae):
			return fmt.Errorf("%s %s: %s", r.Name(), name, ae.Ack.Code)
		case errors.As(err, &te):
			hint := te.Hint
			if hint == "" {
				hint = "is the CSC running on this bus?"
			}
			return fmt.Errorf("%s %s: no final acknowledgement within %s (%s)", r.Name(), name, *timeout, hint)
		case err != nil:
			return err
		case ack.Code.Final():
			if ack.Code.Failed() {
				return fmt.Errorf("%s %s: %s", r.Name(), name, ack.Code)
			}
			return nil
		}
	}
}

// startRemote starts a Remote within timeout (the -timeout of command and
// state): a broker or schema registry that does not answer is an error
// within the limit the user gave, naming what did not answer.
func startRemote(ctx context.Context, bus *sal.Bus, c *salxml.Component, idx int, timeout time.Duration, opts ...sal.RemoteOption) (*sal.Remote, error) {
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := bus.NewRemote(sctx, c.Name, idx, opts...)
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("%s: not started within -timeout %s: %w", c.NameIndex(idx), timeout, err)
	}
	return r, err
}

func printAck(e *env, who, name string, a *sal.Ack, asJSON bool) {
	if asJSON {
		fmt.Fprintf(e.stdout, `{"remote":%q,"command":%q,"ack":%q,"code":%d,"error":%d,"result":%q,"timeout_s":%g,"seqNum":%d}`+"\n",
			who, name, a.Code.String(), int32(a.Code), a.Error, a.Result, a.Timeout.Seconds(), a.SeqNum)
		return
	}
	fmt.Fprintf(e.stdout, "%s %s: %s\n", who, name, cli.FormatAck(a))
}

// ---------------------------------------------------------------------
// state

// transitions lists, per state, the commands that leave it (ts_salobj's
// BaseCsc): STANDBY->DISABLED start, DISABLED->ENABLED enable,
// ENABLED->DISABLED disable, DISABLED/FAULT->STANDBY standby,
// STANDBY->OFFLINE exitControl.
var transitions = map[sal.State][]struct {
	cmd string
	to  sal.State
}{
	sal.Standby:  {{"start", sal.Disabled}, {"exitControl", sal.Offline}},
	sal.Disabled: {{"enable", sal.Enabled}, {"standby", sal.Standby}},
	sal.Enabled:  {{"disable", sal.Disabled}},
	sal.Fault:    {{"standby", sal.Standby}},
}

type step struct {
	cmd      string
	from, to sal.State
}

// path is the shortest sequence of commands from one state to another.
func path(from, to sal.State) ([]step, bool) {
	prev := map[sal.State]step{}
	seen := map[sal.State]bool{from: true}
	queue := []sal.State{from}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == to {
			var out []step
			for s != from {
				st := prev[s]
				out = append([]step{st}, out...)
				s = st.from
			}
			return out, true
		}
		for _, tr := range transitions[s] {
			if !seen[tr.to] {
				seen[tr.to] = true
				prev[tr.to] = step{tr.cmd, s, tr.to}
				queue = append(queue, tr.to)
			}
		}
	}
	return nil, false
}

var stateNames = map[string]sal.State{
	"DISABLED": sal.Disabled, "ENABLED": sal.Enabled, "FAULT": sal.Fault, "OFFLINE": sal.Offline, "STANDBY": sal.Standby,
}

func parseState(s string) (sal.State, error) {
	if st, ok := stateNames[strings.ToUpper(s)]; ok {
		return st, nil
	}
	names := slices.Sorted(maps.Keys(stateNames))
	if cl := salxml.Closest(strings.ToUpper(s), names); len(cl) > 0 {
		return 0, cli.Usagef("unknown state %q (did you mean %s?)", s, strings.Join(cl, ", "))
	}
	return 0, cli.Usagef("unknown state %q: want one of %s", s, strings.Join(names, ", "))
}

const stateHelp = `Each summaryState is printed with the CSC's liveness, from its heartbeat
(the age of a summaryState says nothing: CSCs write it rarely, and a killed
one leaves its last state on the bus):
  Example:1 summaryState 2 (ENABLED), written 812.3 s ago by Example:1; alive (heartbeat 0.4 s ago)
  Example:1 summaryState 2 (ENABLED), written 812.3 s ago by Example:1; NOT RUNNING (no heartbeat within 3s; ...)
A CSC is alive when it writes a heartbeat within 3 s (three heartbeat
intervals; 15 s for a SAL script, which writes one every 5 s) of salctl
starting to read; one read from history does not count, so a CSC killed a
moment ago is not running. -json adds "alive" and
"heartbeat_age_s" (null when none was seen).

With TARGET, the CSC is driven there through the allowed transitions, each
one's acks and new summaryState printed; -override gives the start command's
configurationOverride (as ts_salobj's set_summary_state(override=)) when the
path includes start.

The exit status is 3 when a CSC shown is not running (with TARGET: before
any command is sent), 1 when no summaryState comes within -timeout (which
must be > 0) or a transition fails.`

func stateOf(rec map[string]any) sal.State {
	v, _ := rec["summaryState"].(int32)
	return sal.State(v)
}

func cmdState(e *env, args []string) error {
	fs := flags(e, "state")
	timeout := fs.Duration("timeout", 10*time.Second, "time allowed to start the Remote, to see the summary state and for each transition")
	asJSON := fs.Bool("json", false, "print JSON lines")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	override := fs.String("override", "", "with TARGET: the configuration override of the start command, if the path includes it (ts_salobj's set_summary_state(override=))")
	pos, defs, err := parseArgs(e, fs, args, 1, 2, "COMPONENT[:INDEX] [TARGET]")
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
	if c.Event("summaryState") == nil {
		return cli.Usagef("%s has no summaryState event: not a CSC", c.Name)
	}
	var target sal.State
	if len(pos) == 2 {
		if target, err = parseState(pos[1]); err != nil {
			return err
		}
		if c.Indexed && !hasIdx {
			return cli.Usagef("%s is indexed: give COMPONENT:INDEX to change a CSC's state, e.g. %s:1", c.Name, c.Name)
		}
	}
	if cli.IsSet(fs, "override") && target == 0 {
		return cli.Usagef("-override is for the start command: give a TARGET state, e.g. %s DISABLED", pos[0])
	}
	peerIdx := demoIndex(c, idx)
	bus, err := connect(e, "state", defs, *verbose, fmt.Sprintf("a built-in CSC %s answers", c.NameIndex(peerIdx)))
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Minute)
	defer cancel()
	if bus.Embedded() {
		csc, err := demoCSC(ctx, bus, c, peerIdx)
		if err != nil {
			return err
		}
		defer csc.Close()
	}
	opts := []sal.RemoteOption{remote.WithInclude("summaryState")}
	if c.Event("heartbeat") != nil {
		opts = []sal.RemoteOption{remote.WithInclude("summaryState", "heartbeat")}
	}
	if target == 0 {
		opts = append(opts, remote.WithReadOnly())
	}
	r, err := startRemote(ctx, bus, c, idx, *timeout, opts...)
	if err != nil {
		return err
	}
	defer r.Close()
	ev := r.MustEvent("summaryState")
	var lv *liveness
	show := func(rec map[string]any) {
		st := stateOf(rec)
		snd, _ := rec["private_sndStamp"].(float64)
		who := r.Name()
		si := int32(idx)
		if i, ok := rec["salIndex"].(int32); ok && c.Indexed {
			who, si = c.NameIndex(int(i)), i
		}
		lv.refresh()
		if *asJSON {
			fmt.Fprintf(e.stdout, `{"csc":%q,"summaryState":%q,"value":%d,"age_s":%.3f,%s}`+"\n", who, st.Name(), int32(st), sal.TAI()-snd, lv.jsonFields(si))
			return
		}
		live := ""
		if d := lv.describe(si); d != "" {
			live = "; " + d
		}
		fmt.Fprintf(e.stdout, "%s summaryState %d (%s), written %.1f s ago by %v%s\n", who, int32(st), st.Name(), sal.TAI()-snd, rec["private_identity"], live)
	}

	// History: the newest summaryState per SAL index, queued first.
	var current map[string]any
	var shown []map[string]any
	for range int(ev.Stats().Historical) {
		rec := ev.TryNext()
		if rec == nil {
			break
		}
		shown = append(shown, rec)
		current = rec
	}
	// Liveness: a heartbeat of each instance shown (of the one asked for
	// when none was), written after the Remote started.
	var want []int32
	if !c.Indexed || idx != 0 {
		want = []int32{int32(idx)}
	} else {
		for _, rec := range shown {
			want = append(want, salIndexOf(rec))
		}
	}
	lv = awaitHeartbeats(ctx, r, c, want)
	if current == nil {
		// Nothing to show: wait for a summaryState only from a CSC that
		// is running.
		alive := len(lv.live) > 0 // any index of an indexed component
		if len(want) > 0 {
			alive = lv.alive(want[0])
		}
		if lv.hasHeartbeat && !alive {
			if len(want) == 0 {
				return cli.NotRunningError{Msg: fmt.Sprintf("%s: no summaryState and no heartbeat within %s: no CSC is running on this bus", r.Name(), lv.bound)}
			}
			return cli.NotRunningError{Msg: lv.why(r.Name(), want[0]) + "; no summaryState seen"}
		}
		wctx, wcancel := context.WithTimeout(ctx, *timeout)
		rec, err := ev.Next(wctx)
		wcancel()
		if err != nil {
			return fmt.Errorf("no summaryState from %s within %s: is the CSC running on this bus?", r.Name(), *timeout)
		}
		shown = append(shown, rec)
		current = rec
	}
	var dead []string
	for _, rec := range shown {
		si := int32(idx)
		if c.Indexed {
			si = salIndexOf(rec)
		}
		if !lv.alive(si) {
			dead = append(dead, c.NameIndex(int(si)))
		}
	}
	if target == 0 {
		for _, rec := range shown {
			show(rec)
		}
		if len(dead) > 0 {
			return cli.NotRunningError{Msg: fmt.Sprintf("not running (no heartbeat within %s): %s", lv.bound, strings.Join(dead, ", "))}
		}
		return nil
	}
	if len(dead) > 0 {
		show(current)
		return cli.NotRunningError{Msg: lv.why(r.Name(), int32(idx)) + ": not commanding it"}
	}

	from := stateOf(current)
	if from == target {
		show(current)
		if !*asJSON {
			fmt.Fprintf(e.stdout, "%s is already %s\n", r.Name(), target.Name())
		}
		return nil
	}
	steps, ok := path(from, target)
	if !ok {
		return fmt.Errorf("%s: no allowed transitions lead from %s to %s", r.Name(), from.Name(), target.Name())
	}
	if !*asJSON {
		fmt.Fprintf(e.stdout, "%s summaryState %d (%s); to reach %s: %s\n", r.Name(), int32(from), from.Name(), target.Name(), describe(steps))
	}
	for _, st := range steps {
		_ = ev.Flush()
		var params map[string]any
		if st.cmd == "start" && *override != "" {
			params = map[string]any{"configurationOverride": *override}
		}
		ack, err := r.Command(ctx, st.cmd, params, remote.WithTimeout(*timeout))
		if ack != nil {
			printAck(e, r.Name(), st.cmd, ack, *asJSON)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", r.Name(), st.cmd, err)
		}
		// Wait for the CSC to report the new state.
		wctx, wcancel := context.WithTimeout(ctx, *timeout)
		for {
			rec, err := ev.Next(wctx)
			if err != nil {
				wcancel()
				return fmt.Errorf("%s %s: summaryState %s not seen within %s", r.Name(), st.cmd, st.to.Name(), *timeout)
			}
			if stateOf(rec) == st.to {
				show(rec)
				break
			}
		}
		wcancel()
	}
	return nil
}

func describe(steps []step) string {
	var parts []string
	for _, s := range steps {
		parts = append(parts, fmt.Sprintf("%s (%s -> %s)", s.cmd, s.from.Name(), s.to.Name()))
	}
	return strings.Join(parts, ", ")
}

// ---------------------------------------------------------------------
// csc

const cscHelp = `The CSC has the summary state machine of ts_salobj's BaseCsc and answers the
component's other commands with CMD_COMPLETE (one with a positive "duration"
field first acks CMD_INPROGRESS and completes after that many seconds). It
prints on stdout each acknowledgement it sends and each change of summary
state:
  Example:5 start (seqNum 12) from user@host: ack 303 (CMD_COMPLETE), error 0, result "Done"
  Example:5 summaryState 1 (DISABLED)
On a shared bus it refuses to start beside a running instance of the same
COMPONENT:INDEX (one whose heartbeat it sees within 3 s): exit status 1. It
runs until exitControl (exit status 0) or until interrupted.`

func cmdCSC(e *env, args []string) error {
	fs := flags(e, "csc")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 1, 1, "COMPONENT[:INDEX]")
	if err != nil {
		return err
	}
	c, idx, hasIdx, err := parseInstance(defs, pos[0])
	if err != nil {
		return err
	}
	if err := requireIndex(c, hasIdx); err != nil {
		return err
	}
	bus, err := connect(e, "csc", defs, *verbose, "only this process can command it")
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	var mu sync.Mutex // one line at a time on stdout
	printf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(e.stdout, format, args...)
	}
	name := c.NameIndex(idx)
	opts := []sal.CSCOption{controller.WithHooks(sal.Hooks{SummaryState: func(_ context.Context, s sal.State) error {
		printf("%s summaryState %d (%s)\n", name, int32(s), s.Name())
		return nil
	}})}
	if !bus.Embedded() {
		// Nobody else is on an in-process bus: no duplicate to look for.
		fmt.Fprintf(e.stderr, "salctl csc: looking for a running %s (its heartbeat) before starting\n", name)
		opts = append(opts, controller.WithCheckDuplicate())
	}
	// The acks the CSC writes, read back: every command, refused or not.
	in, err := bus.NewInstance(c, idx, "")
	if err != nil {
		return err
	}
	defer in.Close()
	acks, err := in.Reader(c.Ack(), sal.ReaderOptions{QueueLen: 1000})
	if err != nil {
		return err
	}
	if err := in.Start(ctx); err != nil {
		return err
	}
	acks.SetCallback(func(rec map[string]any) {
		a := topics.AckFromRecord(rec)
		printf("%s %s (seqNum %d) from %s: %s\n", name, cli.CommandOfAck(c, a), a.SeqNum, a.Identity, cli.FormatAck(a))
	})
	csc, err := demoCSC(ctx, bus, c, idx, opts...)
	if errors.Is(err, sal.ErrDuplicate) {
		return fmt.Errorf("refusing to start %s beside a running one: %w", name, err)
	}
	if err != nil {
		return err
	}
	defer csc.Close()
	// Tests wait for this line before commanding it.
	fmt.Fprintf(e.stderr, "salctl csc: %s running in %s on %s; Ctrl-C (or exitControl) to stop\n",
		csc.Name(), csc.State().Name(), strings.Join(bus.Config().Brokers, ","))
	select {
	case <-e.ctx.Done():
		fmt.Fprintf(e.stderr, "salctl csc: %s stopping in %s\n", csc.Name(), csc.State().Name())
	case <-csc.Done():
		fmt.Fprintf(e.stderr, "salctl csc: %s went OFFLINE (exitControl)\n", csc.Name())
	}
	return nil
}

// ---------------------------------------------------------------------
// history

func cmdHistory(e *env, args []string) error {
	fs := flags(e, "history")
	index := fs.Int("index", 0, "only this SAL index (0: every index)")
	depth := fs.Int("depth", 0, "look back this many records (default $LSST_MAX_HISTORY_READ, else 500)")
	asJSON := fs.Bool("json", false, "print JSON lines")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 2, 2, "COMPONENT TOPIC")
	if err != nil {
		return err
	}
	if *depth < 0 {
		return cli.Usagef("-depth must be >= 0")
	}
	c, t, err := findComponentTopic(defs, pos[0], pos[1])
	if err != nil {
		return err
	}
	if err := c.CheckIndex(*index); err != nil {
		return cli.Usagef("-index %d: %v", *index, err)
	}
	var opts []sal.Option
	if *depth > 0 {
		opts = append(opts, sal.WithMaxHistoryRead(*depth))
	}
	indices := []int{0}
	if c.Indexed {
		indices = []int{1, 2}
		if *index != 0 {
			indices = []int{*index}
		}
	}
	peer := fmt.Sprintf("a built-in writer first writes two samples of %s", t)
	if c.Indexed {
		peer += fmt.Sprintf(" for each of SAL indices %v", indices)
	}
	bus, err := connect(e, "history", defs, *verbose, peer, opts...)
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	if bus.Embedded() {
		if err := demoSamples(ctx, bus, c, t, indices); err != nil {
			return err
		}
	}
	now := sal.TAI()
	var recs []map[string]any
	if t.Kind == salxml.Event {
		// Events: the SDK's late-joiner history, as a Remote sees it.
		in, err := bus.NewInstance(c, *index, "")
		if err != nil {
			return err
		}
		defer in.Close()
		rd, err := in.Reader(t, sal.ReaderOptions{MaxHistory: 1, QueueLen: 1000})
		if err != nil {
			return err
		}
		if err := in.Start(ctx); err != nil {
			return err
		}
		for range int(rd.Stats().Historical) {
			if rec := rd.TryNext(); rec != nil {
				recs = append(recs, rec)
			}
		}
	} else {
		// ts_salobj reads no history for telemetry or commands; read the
		// topic back with Tap, as the Kafka prototype did.
		if recs, err = readBack(ctx, bus, t, *index); err != nil {
			return err
		}
	}
	kname := t.KafkaName(bus.Config().Subname)
	if len(recs) == 0 {
		return fmt.Errorf("history %s: no historical data in %s", t, kname)
	}
	enums := cli.NewEnums(c)
	var names []string
	for _, f := range t.Fields {
		names = append(names, f.Name)
	}
	for _, rec := range recs {
		snd, _ := rec["private_sndStamp"].(float64)
		if *asJSON {
			fmt.Fprintf(e.stdout, `{"topic":%q,"salIndex":%d,"age_s":%.3f,"data":%s}`+"\n", t.String(), asInt(rec["salIndex"]), now-snd, cli.FieldsJSON(t, rec))
			continue
		}
		idx := ""
		if t.Indexed {
			idx = fmt.Sprintf(" salIndex %d:", asInt(rec["salIndex"]))
		}
		fmt.Fprintf(e.stdout, "history %s:%s private_seqNum %v, private_sndStamp %.6f, data age %.3f s\n  %s\n",
			t, idx, rec["private_seqNum"], snd, now-snd, cli.FieldsJSON(t, rec))
		if l := enums.Labels(t.SALName, names, rec); len(l) > 0 {
			fmt.Fprintf(e.stdout, "  %s\n", strings.Join(l, ", "))
		}
	}
	return nil
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int: // Tap's values (hamba/avro's generic type for Avro int)
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return 0
}

// readBack reads the last LSST_MAX_HISTORY_READ records of a topic with
// Tap and keeps the newest per SAL index, decoded with their writers'
// schemas. Tap does not say where the ends of the partitions were, so the
// history ends at the first record written after readBack started (a SAL
// topic has one partition), or after a quiet spell: 0.5 s with no
// record, 3 s before the first.
func readBack(ctx context.Context, bus *sal.Bus, t *salxml.Topic, index int) ([]map[string]any, error) {
	cfg := bus.Config()
	started := sal.TAI()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	last, quiet := time.Now(), 3*time.Second
	newest := map[int64]map[string]any{}
	done := make(chan error, 1)
	go func() {
		done <- bus.Tap(ctx, []string{t.KafkaName(cfg.Subname)}, cfg.MaxHistoryRead, func(r sal.TapRecord) {
			mu.Lock()
			defer mu.Unlock()
			if ctx.Err() != nil {
				return
			}
			last, quiet = time.Now(), 500*time.Millisecond
			if r.Err != nil {
				return
			}
			if snd, _ := r.Value["private_sndStamp"].(float64); snd > started {
				cancel() // newer than the history we meant to read
				return
			}
			if idx := asInt(r.Value["salIndex"]); index == 0 || idx == int64(index) {
				newest[idx] = r.Value
			}
		})
	}()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for wait := true; wait; {
		select {
		case err := <-done:
			if ctx.Err() == nil && !missingTopic(err) {
				return nil, err
			}
			wait = false // a topic never written has no history
		case <-tick.C:
			mu.Lock()
			if time.Since(last) > quiet {
				cancel()
			}
			mu.Unlock()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	order := slices.Sorted(maps.Keys(newest))
	out := make([]map[string]any, len(order))
	for i, idx := range order {
		out[i] = newest[idx]
	}
	return out, nil
}
