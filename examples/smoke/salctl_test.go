package smoke

// salctl as users of kcat, ros2 topic and pvget expect it.

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// sharedBus starts localkafka and returns the environment of its bus.
func sharedBus(t *testing.T) []string {
	t.Helper()
	lk := start(t, baseEnv(), "localkafka")
	m := lk.waitFor("stdout", exportLine)
	return busEnv(m)
}

// TestSalctlList lists the SAL topics that exist with their record
// counts: on a shared bus after pub, and on the in-process bus, where a
// built-in CSC creates its topics.
func TestSalctlList(t *testing.T) {
	t.Parallel()
	shared := sharedBus(t)
	mustRun(t, shared, "salctl", "pub", "Example", "scalars", `{"int0": 1}`, "-n", "3", "-rate", "100")
	mustRun(t, shared, "salctl", "pub", "Example", "evt_scalars", `{"int0": 1}`)
	r := mustRun(t, shared, "salctl", "list")
	for _, re := range []string{
		`(?m)^TOPIC +KIND +PARTITIONS +RECORDS$`,
		`(?m)^lsst\.sal\.Example\.scalars +telemetry +1 +3$`,
		`(?m)^lsst\.sal\.Example\.logevent_scalars +event +1 +1$`,
		`(?m)^2 topics, 4 records on 127\.0\.0\.1:\d+ \(subname sal\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("list: no match for %s\n%s", re, r)
		}
	}
	r = mustRun(t, shared, "salctl", "list", "Example", "-json")
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("list -json line %q: %v", l, err)
		}
		rows = append(rows, row)
	}
	if len(rows) != 2 || rows[0]["topic"] != "lsst.sal.Example.logevent_scalars" || rows[1]["sal_name"] != "scalars" || rows[1]["records"] != 3.0 || rows[1]["kind"] != "telemetry" {
		t.Errorf("list Example -json: %v", rows)
	}
	r = mustRun(t, shared, "salctl", "list", "-all")
	if !regexp.MustCompile(`(?m)^lsst\.sal\.Example\.scalars +telemetry +1 +3$`).MatchString(r.stdout) {
		t.Errorf("list -all: want every topic of the broker\n%s", r)
	}

	// In-process: the built-in CSC's topics, its summaryState written once.
	r = mustRun(t, baseEnv(), "salctl", "list", "Example")
	if !strings.Contains(r.stderr, "built-in CSCs Example:1 first create their topics") ||
		!regexp.MustCompile(`(?m)^lsst\.sal\.Example\.logevent_summaryState +event +1 +1$`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^lsst\.sal\.Example\.command_start +command +1 +0$`).MatchString(r.stdout) {
		t.Errorf("list on the in-process bus\n%s", r)
	}
	if r := run(t, baseEnv(), "salctl", "list", "Example:1"); r.code != 2 || !strings.Contains(r.stderr, "give COMPONENT without :INDEX") {
		t.Errorf("list Example:1: want exit 2\n%s", r)
	}
}

// TestSalctlEnumNames: echo, history and state print enumerated values with
// their names (summaryState, ack, and the XML's own enumerations), and the
// built-in writers write only values that have names.
func TestSalctlEnumNames(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	r := mustRun(t, env, "salctl", "echo", "Example.evt_summaryState", "Example.ackcmd", "Example.status", "Example.evt_scalars", "-n", "16")
	states := regexp.MustCompile(`(?m)^summaryState: (-?\d+)(?: \((\w+)\))?$`).FindAllStringSubmatch(r.stdout, -1)
	acks := regexp.MustCompile(`(?m)^ack: (-?\d+)(?: \((\w+)\))?$`).FindAllStringSubmatch(r.stdout, -1)
	modes := regexp.MustCompile(`(?m)^mode: (-?\d+)(?: \((\w+)\))?$`).FindAllStringSubmatch(r.stdout, -1)
	int0s := regexp.MustCompile(`(?m)^int0: (-?\d+)(?: \((\w+)\))?$`).FindAllStringSubmatch(r.stdout, -1)
	if len(states) == 0 || len(acks) == 0 || len(modes) == 0 || len(int0s) == 0 {
		t.Fatalf("echo: want summaryState, ack, mode and int0 lines\n%s", r)
	}
	want := map[string]map[string]string{
		"summaryState": {"1": "DISABLED", "2": "ENABLED", "3": "FAULT", "4": "OFFLINE", "5": "STANDBY"},
		"ack": {"300": "CMD_ACK", "301": "CMD_INPROGRESS", "302": "CMD_STALLED", "303": "CMD_COMPLETE", "-300": "CMD_NOPERM",
			"-301": "CMD_NOACK", "-302": "CMD_FAILED", "-303": "CMD_ABORTED", "-304": "CMD_TIMEOUT"},
		"mode": {"1": "Idle", "2": "Tracking", "3": "Slewing"},
		"int0": {"1": "Int0Enum_One", "2": "Int0Enum_Two", "3": "Int0Enum_Three"},
	}
	for field, ms := range map[string][][]string{"summaryState": states, "ack": acks, "mode": modes, "int0": int0s} {
		for _, m := range ms {
			if want[field][m[1]] != m[2] {
				t.Errorf("echo: %q, want the value %s with its name %q", m[0], m[1], want[field][m[1]])
			}
		}
	}

	r = mustRun(t, env, "salctl", "history", "Example", "evt_summaryState")
	hs := regexp.MustCompile(`(?m)^  summaryState (\d) \((\w+)\)$`).FindAllStringSubmatch(r.stdout, -1)
	if len(hs) != 2 {
		t.Errorf("history evt_summaryState: want a named summaryState per SAL index (2)\n%s", r)
	}
	for _, m := range hs {
		if want["summaryState"][m[1]] != m[2] {
			t.Errorf("history: %q is not a valid summary state", m[0])
		}
	}
	r = mustRun(t, env, "salctl", "history", "Example", "evt_summaryState", "-json")
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v struct {
			Data struct {
				SummaryState int `json:"summaryState"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Data.SummaryState < 1 || v.Data.SummaryState > 5 {
			t.Errorf("history -json: %q (%v): summaryState not from 1 to 5", l, err)
		}
	}
}

// TestSalctlCSC: salctl csc prints each command it acks and each change of
// state, and a second one of the same instance refuses to start.
func TestSalctlCSC(t *testing.T) {
	t.Parallel()
	shared := sharedBus(t)
	csc := start(t, shared, "salctl", "csc", "Example:7")
	csc.waitFor("stderr", regexp.MustCompile(`salctl csc: Example:7 running in STANDBY`))
	if !strings.Contains(csc.text("stderr"), "looking for a running Example:7 (its heartbeat) before starting") {
		t.Errorf("csc does not say it looks for a running instance\n%s", csc.dump())
	}
	r := run(t, shared, "salctl", "csc", "Example:7")
	if r.code != 1 || !strings.Contains(r.stderr, "refusing to start Example:7 beside a running one") || !strings.Contains(r.stderr, "quitting: found another instance with origin=") {
		t.Errorf("a second csc Example:7: want exit 1 and the refusal\n%s", r)
	}
	mustRun(t, shared, "salctl", "command", "Example:7", "start")
	mustRun(t, shared, "salctl", "command", "Example:7", "setLogLevel", `{"level": 10}`)
	if r := run(t, shared, "salctl", "command", "Example:7", "start"); r.code != 1 {
		t.Errorf("start in DISABLED: want exit 1\n%s", r)
	}
	csc.waitFor("stdout", regexp.MustCompile(`(?m)^Example:7 start \(seqNum -?\d+\) from \S+: ack -302 \(CMD_FAILED\), error 1, result "Failed: start not allowed in state <State.DISABLED: 1>"$`))
	out := csc.text("stdout")
	for _, re := range []string{
		`(?m)^Example:7 summaryState 1 \(DISABLED\)$`,
		`(?m)^Example:7 start \(seqNum -?\d+\) from \S+: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`,
		`(?m)^Example:7 setLogLevel \(seqNum -?\d+\) from \S+: ack 303 \(CMD_COMPLETE\)`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("csc output: no match for %s\n%s", re, csc.dump())
		}
	}
	// SIGINT ends it with status 130.
	_ = csc.cmd.Process.Signal(os.Interrupt)
	if code := csc.wait(); code != 130 || !strings.Contains(csc.text("stderr"), "salctl: interrupted") {
		t.Errorf("csc after SIGINT: exit %d, want 130\n%s", code, csc.dump())
	}
}

// TestSalctlEchoPubRoundTrip: NaN and infinities printed by echo -json are
// sent back by pub, and echo -fields names the close matches of an
// unknown field, before connecting for a topic the definitions know and
// at the first record for one they do not.
func TestSalctlEchoPubRoundTrip(t *testing.T) {
	t.Parallel()
	shared := sharedBus(t)
	mustRun(t, shared, "salctl", "pub", "Example", "scalars", `{"double0": "NaN", "float0": "-Infinity", "int0": 5}`)
	echo := func() (map[string]any, json.RawMessage) {
		t.Helper()
		r := mustRun(t, shared, "salctl", "echo", "Example.scalars", "-last", "1", "-n", "1", "-json")
		var line struct {
			Offset int             `json:"offset"`
			Value  json.RawMessage `json:"value"`
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &line); err != nil {
			t.Fatalf("echo -json: %v\n%s", err, r)
		}
		if err := json.Unmarshal(line.Value, &v); err != nil {
			t.Fatalf("echo -json value: %v\n%s", err, r)
		}
		v["offset"] = line.Offset
		return v, line.Value
	}
	v, raw := echo()
	if v["double0"] != "NaN" || v["float0"] != "-Infinity" || v["int0"] != 5.0 || v["offset"] != 0 {
		t.Fatalf("echo -json after pub: %v", v)
	}
	r := mustRun(t, shared, "salctl", "pub", "Example", "scalars", string(raw))
	if !strings.Contains(r.stderr, "ignoring salIndex, private_") {
		t.Errorf("pub of echo's value: want the private fields said ignored\n%s", r)
	}
	v, _ = echo()
	if v["double0"] != "NaN" || v["float0"] != "-Infinity" || v["int0"] != 5.0 || v["offset"] != 1 {
		t.Errorf("echo -json of the record pub wrote back (offset 1): %v", v)
	}

	// -fields: a known topic is checked before connecting...
	r = run(t, shared, "salctl", "echo", "Example.scalars", "-fields", "int0,doubel0")
	if r.code != 2 || !strings.Contains(r.stderr, `-fields: lsst.sal.Example.scalars has no field "doubel0" (did you mean double0?)`) || strings.Contains(r.stderr, "listening") {
		t.Errorf("echo -fields doubel0: want exit 2 with the close match, before listening\n%s", r)
	}
	// ...a topic the definitions lack, by its writer's schema.
	writerEnv := append(shared, "TS_XML_DIR="+smokeXML(t))
	mustRun(t, writerEnv, "salctl", "pub", "Example", "smokeOnly", `{"answer": 42}`)
	r = run(t, shared, "salctl", "echo", "Example.smokeOnly", "-last", "1", "-fields", "answr")
	if r.code != 2 || !strings.Contains(r.stderr, `-fields: lsst.sal.Example.smokeOnly has no field "answr" (did you mean answer?)`) {
		t.Errorf("echo -fields answr of a topic the definitions lack\n%s", r)
	}
	r = mustRun(t, shared, "salctl", "echo", "Example.smokeOnly", "-last", "1", "-n", "1", "-fields", "answer,label")
	if !regexp.MustCompile(`(?m)^answer: 42\nlabel: ""\n\z`).MatchString(r.stdout[strings.Index(r.stdout, "\n")+1:]) {
		t.Errorf("echo -fields answer,label\n%s", r)
	}
}

// TestSalctlConventions: one exit-code convention for every verb, written
// in the help; help VERB and VERB -h identical; timeouts of 0 or less
// rejected where they make no sense; check-schema without a registry says
// how to get one.
func TestSalctlConventions(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	r := mustRun(t, env, "salctl", "help")
	if !strings.Contains(r.stdout, "Exit status, the same for every verb:\n  0    success") || !strings.Contains(r.stdout, "\n  2    usage error\n  3    the CSC addressed is not running") ||
		!strings.Contains(r.stdout, "\n  130  interrupted by SIGINT (Ctrl-C); 143 terminated by SIGTERM.") {
		t.Errorf("salctl help does not state the exit statuses\n%s", r)
	}
	verbs := regexp.MustCompile(`(?m)^  ([a-z-]+) `).FindAllStringSubmatch(r.stdout, -1)
	if len(verbs) < 15 {
		t.Fatalf("salctl help lists %d verbs\n%s", len(verbs), r)
	}
	for _, m := range verbs {
		v := m[1]
		h := run(t, env, "salctl", "help", v)
		d := run(t, env, "salctl", v, "-h")
		if h.code != 0 || d.code != 0 || h.stdout != d.stdout || h.stderr != "" || d.stderr != "" ||
			!strings.HasPrefix(h.stdout, "usage: salctl "+v+" ") || !strings.Contains(h.stdout, "Exit status: 0 success;") {
			t.Errorf("salctl help %s and salctl %s -h differ or fail:\n%s\n%s", v, v, h, d)
		}
	}
	if r := run(t, env, "salctl", "help", "nosuch"); r.code != 2 || !strings.Contains(r.stderr, `unknown verb "nosuch"`) {
		t.Errorf("help nosuch: want exit 2\n%s", r)
	}

	// 0, 1, 2.
	mustRun(t, env, "salctl", "components")
	if r := run(t, env, "salctl", "echo", "Example.noSuchTopic", "-n", "1", "-timeout", "1s"); r.code != 1 || !strings.Contains(r.stderr, "timeout after 1s: 0 of 1 records") {
		t.Errorf("echo that times out: want exit 1\n%s", r)
	}
	if r := run(t, env, "salctl", "command", "Example:1", "enable"); r.code != 1 {
		t.Errorf("a failed command: want exit 1\n%s", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"command", "Example:1", "start", "-timeout", "0"}, "-timeout 0s: want a duration > 0"},
		{[]string{"command", "Example:1", "start", "-timeout", "-1s"}, "-timeout -1s: want a duration > 0"},
		{[]string{"state", "Example:1", "-timeout", "0"}, "-timeout 0s: want a duration > 0"},
		{[]string{"echo", "Example.scalars", "-timeout", "-1s"}, "-timeout -1s: want a duration >= 0 (0: no limit)"},
		{[]string{"hz", "Example.scalars", "-timeout", "-1s"}, "want a duration >= 0"},
		{[]string{"bw", "Example.scalars", "-timeout", "-1s"}, "want a duration >= 0"},
		{[]string{"top", "Example", "-timeout", "-1s"}, "want a duration >= 0"},
		{[]string{"echo", "Example.scalars", "-nosuchflag"}, "flag provided but not defined: -nosuchflag"},
		{[]string{"nosuchverb"}, `unknown verb "nosuchverb"`},
	} {
		if r := run(t, env, "salctl", c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("salctl %v: want exit 2 and %q\n%s", c.args, c.want, r)
		}
	}
	for _, v := range []string{"echo", "hz", "bw"} {
		if r := mustRun(t, env, "salctl", "help", v); !strings.Contains(r.stdout, "-timeout 0 (the default) means no limit") {
			t.Errorf("help %s does not document -timeout 0\n%s", v, r)
		}
	}

	// 130 on SIGINT, 143 on SIGTERM.
	for _, sig := range []struct {
		s    os.Signal
		code int
		word string
	}{{os.Interrupt, 130, "interrupted"}, {syscall.SIGTERM, 143, "terminated"}} {
		p := start(t, env, "salctl", "echo", "Example.scalars")
		p.waitFor("stdout", regexp.MustCompile(`(?m)^--- lsst\.sal\.Example\.scalars`))
		_ = p.cmd.Process.Signal(sig.s)
		if code := p.wait(); code != sig.code || !strings.Contains(p.text("stderr"), "salctl: "+sig.word) {
			t.Errorf("echo after %v: exit %d, want %d\n%s", sig.s, code, sig.code, p.dump())
		}
	}

	// check-schema without a registry.
	r = run(t, env, "salctl", "check-schema")
	if r.code != 2 || !strings.Contains(r.stderr, "no schema registry to compare with: set LSST_SCHEMA_REGISTRY_URL or give -registry URL") ||
		!strings.Contains(r.stderr, "go run ./examples/localkafka") {
		t.Errorf("check-schema without a registry: want exit 2 and how to get one\n%s", r)
	}
}

// TestVersion: salctl prints one version line, the same for each way of
// asking: the module, its version, the VCS revision or why there is none,
// and the Go version.
func TestVersion(t *testing.T) {
	t.Parallel()
	line := regexp.MustCompile(`^(\S+) github\.com/lsst-sal/salgo/cmd/salctl \S+, (revision [0-9a-f]+.*|no VCS revision recorded .*), go1\.\d+\S* \w+/\w+\n$`)
	var rest string
	for _, c := range [][]string{
		{"salctl", "--version"}, {"salctl", "-version"}, {"salctl", "version"},
	} {
		r := mustRun(t, baseEnv(), c[0], c[1:]...)
		m := line.FindStringSubmatch(r.stdout)
		if m == nil || m[1] != c[0] {
			t.Errorf("%s %s: %q is not a version line", c[0], c[1], r.stdout)
			continue
		}
		if tail := strings.TrimPrefix(r.stdout, c[0]); rest == "" {
			rest = tail
		} else if tail != rest {
			t.Errorf("%s %s: %q, differs from the others' %q", c[0], c[1], tail, rest)
		}
	}
}
