package smoke

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	salxml "github.com/lsst-sal/salgo/xml"
)

func TestQuickstart(t *testing.T) {
	t.Parallel()
	r := mustRun(t, baseEnv(), "quickstart")
	for _, want := range []string{"CSC Example:1 started in STANDBY", "enable: CMD_COMPLETE", "late joiner: history summaryState ENABLED", "quickstart: done"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("quickstart output lacks %q\n%s", want, r)
		}
	}
}

// TestTyped: the quickstart on typed records prints the states, the three
// acknowledgements and the scalars telemetry read back as structs, with
// the Mode enumeration's names; the same with TS_XML_DIR set (ts_xml has
// no Example: the generated package brings it).
func TestTyped(t *testing.T) {
	t.Parallel()
	const want = "CSC Example:1 started in STANDBY\n" +
		"states: [STANDBY DISABLED ENABLED]\n" +
		"summaryState: ENABLED\n" +
		"setScalars Idle: CMD_COMPLETE; scalars: int0=1 (Idle) double0=0.25 string0=\"mode Idle\" seqNum=1\n" +
		"setScalars Tracking: CMD_COMPLETE; scalars: int0=2 (Tracking) double0=0.5 string0=\"mode Tracking\" seqNum=2\n" +
		"setScalars Slewing: CMD_COMPLETE; scalars: int0=3 (Slewing) double0=0.75 string0=\"mode Slewing\" seqNum=3\n" +
		"typed: done\n"
	envs := [][]string{baseEnv()}
	if dir := os.Getenv(salxml.EnvDir); dir != "" {
		envs = append(envs, append(baseEnv(), salxml.EnvDir+"="+dir))
	}
	for _, env := range envs {
		if r := mustRun(t, env, "typed"); r.stdout != want {
			t.Errorf("typed's output, want\n%s\n%s", want, r)
		}
	}
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	r := mustRun(t, baseEnv(), "schemas", "-component", "Example")
	comp, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(comp.Topics) {
		t.Fatalf("schemas printed %d lines, want one per topic (%d)\n%s", len(lines), len(comp.Topics), r)
	}
	for i, l := range lines {
		var v struct {
			KafkaName string `json:"kafka_name"`
			Schema    string `json:"schema"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
		tp := comp.Topics[i]
		if v.KafkaName != tp.KafkaName("sal") || v.Schema != tp.AvroSchema() {
			t.Errorf("line %d: %s, want the schema of %s", i+1, v.KafkaName, tp)
		}
	}
}

// TestRemote: the small Remote finds telemetrycsc on a shared bus by its
// summaryState history, enables it, prints its telemetry, and sends it
// back to STANDBY, which the CSC's own process then reports.
func TestRemote(t *testing.T) {
	t.Parallel()
	shared := sharedBus(t)
	csc := start(t, shared, "telemetrycsc", "3", "--simulate")
	r := mustRun(t, shared, "remote", "-n", "3", "3")
	for _, re := range []string{
		`(?m)^found Example: 3 in STANDBY$`,
		`(?m)^states: \[STANDBY DISABLED ENABLED\]$`,
		`(?m)^scalars: int0=\d+ double0=-?\d\.\d{3}$`,
		`(?m)^remote: done, Example: 3 in STANDBY$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("remote's output: no match for %s\n%s", re, r)
		}
	}
	if n := count(regexp.MustCompile(`(?m)^scalars: `), r.stdout); n != 3 {
		t.Errorf("%d samples printed, want 3\n%s", n, r)
	}
	csc.stop()
}

// TestSaveFile: a CSC saves a file to the Large File Annex (the
// in-process store) and announces it; a Remote downloads what the event
// names, with the announced checksum.
func TestSaveFile(t *testing.T) {
	t.Parallel()
	r := mustRun(t, baseEnv(), "savefile")
	for _, re := range []string{
		`(?m)^saved 2700 bytes to bucket rubinobs-lfa-test \(key Example:1/savefile/\d{4}/\d\d/\d\d/Example:1_savefile_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\.txt\)$`,
		`(?m)^largeFileObjectAvailable: generator savefile, 2700 bytes, checkSum [0-9a-f]{32}, mimeType text/plain$`,
		`(?m)^downloaded 2700 bytes: the checksum matches$`,
		`(?m)^savefile: done$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("savefile's output: no match for %s\n%s", re, r)
		}
	}
}

var perfLine = regexp.MustCompile(`(?m)^(\d+) records sent, [\d.]+ records/sec, [\d.]+ ms avg latency, [\d.]+ ms max latency, [\d.]+ ms 50th, [\d.]+ ms 95th, [\d.]+ ms 99th, [\d.]+ ms 99\.9th\.$`)

func TestWrite(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	r := mustRun(t, env, "write", "-n", "100", "Example", "scalars")
	m := perfLine.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != "100" || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("want one summary line saying 100 records sent\n%s", r)
	}
	if !strings.Contains(r.stderr, "no Kafka broker configured") {
		t.Errorf("write does not say it runs on the in-process bus\n%s", r)
	}

	// An attribute name, acks=all.
	r = mustRun(t, env, "write", "-n", "20", "-acks", "all", "Example", "evt_arrays")
	if m := perfLine.FindStringSubmatch(r.stdout); m == nil || m[1] != "20" {
		t.Errorf("want one summary line saying 20 records sent\n%s", r)
	}

	// Mistakes: exit status 2 for the command line, 1 with close matches for a name.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"Exampel", "scalars"}, 1, `did you mean Example?`},
		{[]string{"Example", "scalar"}, 1, `evt_scalars, scalars`},
		{[]string{"Example"}, 2, "usage: write [flags] COMPONENT TOPIC"},
	} {
		r := run(t, env, "write", c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("write %v: want exit %d and %q\n%s", c.args, c.code, c.want, r)
		}
	}
}

var readLine = regexp.MustCompile(`(?m)^(\d+) records read in [\d.]+ s, [\d.]+ records/sec; latency ms: mean [\d.]+, stdev [\d.]+, min -?[\d.]+, max [\d.]+, p50 -?[\d.]+, p99 [\d.]+; (\d+) records lost \(seqNum gaps\)\.$`)

func TestRead(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	r := mustRun(t, env, "read", "-n", "50", "-t", "Example", "scalars", "evt_scalars")
	m := readLine.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != "50" || m[2] != "0" {
		t.Errorf("want the -t summary of 50 records, none lost\n%s", r)
	}
	// The history comes first: one sample per SAL index, events only.
	for _, want := range []string{
		"history Example.scalars: none read",
		"history Example.logevent_scalars: salIndex 1: private_seqNum 1",
		"history Example.logevent_scalars: salIndex 2: private_seqNum 1",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("read output lacks %q\n%s", want, r)
		}
	}
	if !strings.Contains(r.stderr, "built-in writer") {
		t.Errorf("read does not say where its records come from\n%s", r)
	}

	r = mustRun(t, env, "read", "-n", "3", "Example", "evt_arrays")
	hist := count(regexp.MustCompile(`(?m)^history Example\.logevent_arrays: salIndex [12]: private_seqNum 1,`), r.stdout)
	live := count(regexp.MustCompile(`(?m)^read \[[123]\] Example\.logevent_arrays: salIndex=1 .* double0=\[\S+ \S+ \S+ \S+ \S+\]$`), r.stdout)
	if hist != 2 || live != 3 {
		t.Errorf("want 2 historical and 3 new records, got %d and %d\n%s", hist, live, r)
	}
}

func TestSalctlDefinitions(t *testing.T) {
	t.Parallel()
	env := baseEnv()
	r := mustRun(t, env, "salctl", "components")
	if !regexp.MustCompile(`(?m)^Example\s+any\s+\d+\s+Example CSC`).MatchString(r.stdout) {
		t.Errorf("components does not list Example\n%s", r)
	}

	r = mustRun(t, env, "salctl", "topics", "Example")
	for _, re := range []string{
		`(?m)^tel_status \(status, telemetry\): `,
		`(?m)^\s+temperature\s+float\[8\]\s+deg_C\s+Readings of the eight temperature sensors`,
		`(?m)^\s+position\s+double\[3\]\s+m\s+`,
		`(?m)^\s+timestamp\s+double\s+second\s+`,
		`(?m)^cmd_setScalars \(command_setScalars, command\): `,
		`(?m)^evt_summaryState \(logevent_summaryState, event\): `,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("topics Example: no match for %s\n%s", re, r)
		}
	}

	comp, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"evt_summaryState", "logevent_summaryState", "scalars", "cmd_setArrays", "ackcmd"} {
		r = mustRun(t, env, "salctl", "schema", "Example", name)
		var tp *salxml.Topic
		for _, x := range comp.Topics {
			if x.SALName == name || x.AttrName() == name {
				tp = x
			}
		}
		if r.stdout != tp.AvroSchema()+"\n" {
			t.Errorf("schema Example %s differs from xml.Embedded()'s\n got: %s\nwant: %s", name, r.stdout, tp.AvroSchema())
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"topics", "Exmple"}, "did you mean Example?"},
		{[]string{"schema", "Example", "evt_summarystate"}, "did you mean"},
		{[]string{"topcis"}, "did you mean topics"}, // and top
		{[]string{"state", "Example:1", "enabeld"}, "did you mean ENABLED?"},
		{[]string{"command", "Example:1", "strat"}, "did you mean start?"},
	} {
		r := run(t, env, "salctl", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("salctl %v: want exit 2 and %q\n%s", c.args, c.want, r)
		}
	}
}

// TestSalctlInProcess runs the verbs that need a peer on the in-process
// bus, where salctl brings its own.
func TestSalctlInProcess(t *testing.T) {
	t.Parallel()
	env := baseEnv()

	r := mustRun(t, env, "salctl", "echo", "Example.scalars", "Example.evt_arrays", "-n", "4")
	if n := count(regexp.MustCompile(`(?m)^--- lsst\.sal\.Example\.(scalars|logevent_arrays) \[0\] offset \d+, schema id \d+`), r.stdout); n != 4 {
		t.Errorf("echo -n 4 printed %d records\n%s", n, r)
	}
	for _, re := range []string{`(?m)^string0: ".*"$`, `(?m)^double0: \[\S+, \S+, \S+, \S+, \S+\]$`, `(?m)^private_identity: "salctl-demo"$`} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("echo output has no match for %s\n%s", re, r)
		}
	}
	if !strings.Contains(r.stderr, "a built-in writer publishes random records") {
		t.Errorf("echo does not say where its records come from\n%s", r)
	}

	r = mustRun(t, env, "salctl", "hz", "Example.scalars", "-n", "12")
	if !regexp.MustCompile(`(?m)^average rate: [\d.]+\n\tmin: [\d.]+s max: [\d.]+s std dev: [\d.]+s window: 12$`).MatchString(r.stdout) {
		t.Errorf("hz -n 12: no final rate over a window of 12\n%s", r)
	}

	r = mustRun(t, env, "salctl", "bw", "Example.arrays", "-n", "10")
	if !regexp.MustCompile(`(?m)^total: [\d.]+ [KM]?B from 10 messages \([\d.]+ [KM]?B/s\)$`).MatchString(r.stdout) {
		t.Errorf("bw -n 10: no total\n%s", r)
	}

	r = mustRun(t, env, "salctl", "pub", "Example", "evt_scalars", `{"int0": 7, "string0": "smoke", "float0": 1.5}`, "-json")
	var pub struct {
		Topic string         `json:"topic"`
		Data  map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &pub); err != nil {
		t.Fatalf("pub -json: %v\n%s", err, r)
	}
	if pub.Topic != "Example.logevent_scalars" || pub.Data["int0"] != 7.0 || pub.Data["string0"] != "smoke" || pub.Data["private_seqNum"] != 1.0 {
		t.Errorf("pub wrote %+v", pub)
	}
	r = run(t, env, "salctl", "pub", "Example", "scalars", `{"int00": 1}`)
	if r.code != 1 || !strings.Contains(r.stderr, "int00: did you mean int0?") {
		t.Errorf("pub with a misspelt field: want the close match\n%s", r)
	}

	r = mustRun(t, env, "salctl", "command", "Example:1", "start")
	if !regexp.MustCompile(`(?m)^Example:1 start: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`).MatchString(r.stdout) {
		t.Errorf("command start: no CMD_COMPLETE\n%s", r)
	}
	r = mustRun(t, env, "salctl", "command", "Example:1", "wait", `{"duration": 0.2}`)
	if !regexp.MustCompile(`(?m)^Example:1 wait: ack 301 \(CMD_INPROGRESS\), error 0, result "salctl-demo: waiting", timeout 200ms\nExample:1 wait: ack 303 \(CMD_COMPLETE\), error 0, result "Done"$`).MatchString(r.stdout) {
		t.Errorf("command wait: want CMD_INPROGRESS then CMD_COMPLETE\n%s", r)
	}
	r = run(t, env, "salctl", "command", "Example:1", "enable")
	if r.code != 1 || !strings.Contains(r.stdout, `Example:1 enable: ack -302 (CMD_FAILED), error 1, result "Failed: enable not allowed in state <State.STANDBY: 5>"`) {
		t.Errorf("command enable from STANDBY: want the reference's failure\n%s", r)
	}

	r = mustRun(t, env, "salctl", "state", "Example:1")
	if !regexp.MustCompile(`(?m)^Example:1 summaryState 5 \(STANDBY\), written `).MatchString(r.stdout) {
		t.Errorf("state: want STANDBY\n%s", r)
	}
	r = mustRun(t, env, "salctl", "state", "Example:1", "enabled")
	for _, re := range []string{
		`(?m)^Example:1 start: ack 303 \(CMD_COMPLETE\)`,
		`(?m)^Example:1 summaryState 1 \(DISABLED\), `,
		`(?m)^Example:1 enable: ack 303 \(CMD_COMPLETE\)`,
		`(?m)^Example:1 summaryState 2 \(ENABLED\), `,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("state Example:1 enabled: no match for %s\n%s", re, r)
		}
	}

	r = mustRun(t, env, "salctl", "history", "Example", "evt_scalars")
	r2 := mustRun(t, env, "salctl", "history", "Example", "tel_status", "-json")
	for _, re := range []string{`(?m)^history Example.logevent_scalars: salIndex 1: private_seqNum 2,`, `(?m)^history Example.logevent_scalars: salIndex 2: private_seqNum 2,`} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("history evt_scalars: no match for %s\n%s", re, r)
		}
	}
	if n := count(regexp.MustCompile(`(?m)^\{"topic":"Example.status","salIndex":[12],`), r2.stdout); n != 2 {
		t.Errorf("history tel_status -json: want one line per SAL index\n%s", r2)
	}
}

// smokeXML writes a copy of the embedded Example definitions with one more
// telemetry topic, smokeOnly, that no other program's XML has.
func smokeXML(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "xml", "example")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "Example_Telemetry.xml" {
			b = []byte(strings.Replace(string(b), "</SALTelemetrySet>", `  <SALTelemetry>
    <Subsystem>Example</Subsystem>
    <EFDB_Topic>Example_smokeOnly</EFDB_Topic>
    <Description>A topic only the writer's definitions have.</Description>
    <item>
      <EFDB_Name>answer</EFDB_Name>
      <Description>An integer.</Description>
      <IDL_Type>long</IDL_Type>
      <Units>unitless</Units>
      <Count>1</Count>
    </item>
    <item>
      <EFDB_Name>temps</EFDB_Name>
      <Description>Three temperatures.</Description>
      <IDL_Type>float</IDL_Type>
      <Units>deg_C</Units>
      <Count>3</Count>
    </item>
    <item>
      <EFDB_Name>label</EFDB_Name>
      <Description>A label.</Description>
      <IDL_Type>string</IDL_Type>
      <Units>unitless</Units>
      <Count>1</Count>
    </item>
  </SALTelemetry>
</SALTelemetrySet>`, 1))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := salxml.Open(dst); err != nil {
		t.Fatal(err)
	} else if c, err := d.Component("Example"); err != nil || c.Telemetry("smokeOnly") == nil {
		t.Fatalf("edited definitions lack smokeOnly: %v", err)
	}
	return dst
}

var exportLine = regexp.MustCompile(`(?m)^export LSST_KAFKA_BROKER_ADDR=(127\.0\.0\.1:\d+)\nexport LSST_SCHEMA_REGISTRY_URL=(http://127\.0\.0\.1:\d+)\nexport LSST_TOPIC_SUBNAME=(sal)\n`)

// busEnv is the environment of a program on the bus of localkafka's
// export lines m.
func busEnv(m []string) []string {
	return append(baseEnv(), "LSST_KAFKA_BROKER_ADDR="+m[1], "LSST_SCHEMA_REGISTRY_URL="+m[2], "LSST_TOPIC_SUBNAME="+m[3])
}

// TestLocalKafkaCrossProcess shares one bus between processes: localkafka
// serves it; salctl pub (with definitions that have an extra topic) and
// write publish; salctl echo (which never saw that topic's XML) and read
// receive; then salctl state and command drive a salctl csc.
func TestLocalKafkaCrossProcess(t *testing.T) {
	t.Parallel()
	envFile := filepath.Join(t.TempDir(), "bus.env")
	lk := start(t, baseEnv(), "localkafka", "-env-file", envFile)
	m := lk.waitFor("stdout", exportLine)
	if b, err := os.ReadFile(envFile); err != nil || string(b) != m[0] {
		t.Errorf("-env-file holds %q (%v), want the export lines %q", b, err, m[0])
	}
	shared := busEnv(m)

	echo := start(t, shared, "salctl", "echo", "Example.smokeOnly", "-n", "2", "-json")
	echo.waitFor("stderr", regexp.MustCompile(`salctl echo: listening on lsst\.sal\.Example\.smokeOnly`))
	read := start(t, shared, "read", "-n", "30", "-t", "Example", "scalars")
	read.waitFor("stderr", regexp.MustCompile(`read: reading lsst\.sal\.Example\.scalars from `+regexp.QuoteMeta(m[1])))

	writerEnv := append(shared, "TS_XML_DIR="+smokeXML(t))
	r := mustRun(t, writerEnv, "salctl", "pub", "Example", "smokeOnly", `{"answer": 42, "temps": [1.5, 2.5, -3], "label": "cross-process"}`, "-n", "2", "-rate", "50")
	if n := count(regexp.MustCompile(`(?m)^published Example.smokeOnly salIndex 1 seqNum \d to lsst.sal.Example.smokeOnly`), r.stdout); n != 2 {
		t.Errorf("pub -n 2 printed\n%s", r)
	}
	if strings.Contains(r.stderr, "no broker configured") {
		t.Errorf("pub ran on its own bus, not localkafka's\n%s", r)
	}
	r = mustRun(t, shared, "write", "-n", "30", "Example", "scalars")
	if m := perfLine.FindStringSubmatch(r.stdout); m == nil || m[1] != "30" {
		t.Errorf("write to localkafka's bus\n%s", r)
	}

	if code := echo.wait(); code != 0 {
		t.Fatalf("echo exited %d\n%s", code, echo.dump())
	}
	out := echo.text("stdout")
	if n := count(regexp.MustCompile(`(?m)^\{"topic":"lsst\.sal\.Example\.smokeOnly","partition":0,"offset":[01],.*"value":\{"salIndex":1,.*"private_seqNum":[12],.*"answer":42,"temps":\[1\.5,2\.5,-3\],"label":"cross-process"\}\}$`), out); n != 2 {
		t.Errorf("echo did not print the two smokeOnly records with their fields\n%s", echo.dump())
	}
	if !strings.Contains(echo.text("stderr"), `Example has no topic "smokeOnly"`) {
		t.Errorf("echo's definitions were expected not to know smokeOnly\n%s", echo.dump())
	}

	if code := read.wait(); code != 0 {
		t.Fatalf("read exited %d\n%s", code, read.dump())
	}
	if m := readLine.FindStringSubmatch(read.text("stdout")); m == nil || m[1] != "30" || m[2] != "0" {
		t.Errorf("read -t on the shared bus\n%s", read.dump())
	}
	if strings.Contains(read.text("stderr"), "built-in writer") {
		t.Errorf("read fed itself instead of reading the shared bus\n%s", read.dump())
	}

	// A CSC in one process, commanded from others.
	csc := start(t, shared, "salctl", "csc", "Example:5")
	csc.waitFor("stderr", regexp.MustCompile(`salctl csc: Example:5 running in STANDBY on `+regexp.QuoteMeta(m[1])))
	r = mustRun(t, shared, "salctl", "state", "Example:5", "ENABLED")
	if !regexp.MustCompile(`(?m)^Example:5 summaryState 2 \(ENABLED\), written [\d.]+ s ago by Example:5; alive \(heartbeat [\d.]+ s ago\)$`).MatchString(r.stdout) {
		t.Errorf("state Example:5 ENABLED across processes\n%s", r)
	}
	r = mustRun(t, shared, "salctl", "command", "Example:5", "setScalars", `{"int0": 5}`, "-json")
	if !strings.Contains(r.stdout, `"ack":"CMD_COMPLETE"`) {
		t.Errorf("command across processes\n%s", r)
	}
	r = mustRun(t, shared, "salctl", "state", "Example:5", "OFFLINE")
	if !strings.Contains(r.stdout, "Example:5 exitControl: ack 303 (CMD_COMPLETE)") {
		t.Errorf("state Example:5 OFFLINE across processes\n%s", r)
	}
	if code := csc.wait(); code != 0 || !strings.Contains(csc.text("stderr"), "went OFFLINE (exitControl)") {
		t.Errorf("the CSC process should end after exitControl (exit %d)\n%s", code, csc.dump())
	}

	lk.stop()
	if !strings.Contains(lk.text("stderr"), "localkafka: stopping") || lk.exitCode() != 143 {
		t.Errorf("localkafka did not stop cleanly on SIGTERM with exit status 143 (%v)\n%s", lk.err, lk.dump())
	}
}

// TestLocalKafkaPorts starts localkafka on fixed ports, writes to it, and
// checks that a second one cannot take the same port and that a bad port
// is refused.
func TestLocalKafkaPorts(t *testing.T) {
	t.Parallel()
	ports := freePorts(t, 2)
	kport, rport := ports[0], ports[1]
	lk := start(t, baseEnv(), "localkafka", "-kafka-port", strconv.Itoa(kport), "-registry-port", strconv.Itoa(rport))
	m := lk.waitFor("stdout", exportLine)
	if m[1] != fmt.Sprintf("127.0.0.1:%d", kport) || m[2] != fmt.Sprintf("http://127.0.0.1:%d", rport) {
		t.Fatalf("localkafka -kafka-port %d -registry-port %d exported %q", kport, rport, m[0])
	}
	shared := busEnv(m)
	r := mustRun(t, shared, "salctl", "pub", "Example", "scalars", `{"int0": 1}`)
	if !strings.Contains(r.stdout, "published Example.scalars salIndex 1 seqNum 1 to lsst.sal.Example.scalars [0] offset 0") {
		t.Errorf("pub to localkafka on fixed ports\n%s", r)
	}
	if r = run(t, baseEnv(), "localkafka", "-kafka-port", strconv.Itoa(kport)); r.code != 1 || !strings.Contains(r.stderr, "address already in use") {
		t.Errorf("a second localkafka on port %d: want exit 1, address already in use\n%s", kport, r)
	}
	if r = run(t, baseEnv(), "localkafka", "-registry-port", "70000"); r.code != 2 || !strings.Contains(r.stderr, "-registry-port 70000: want a port from 1 to 65535") {
		t.Errorf("localkafka -registry-port 70000: want exit 2 (usage) and the range\n%s", r)
	}
}

// TestLocalKafkaRestart restarts localkafka -data on fixed ports under a
// running salctl echo: the echo carries on and gets the record published
// after the restart, at the offset after the one from before it.
func TestLocalKafkaRestart(t *testing.T) {
	t.Parallel()
	ports := freePorts(t, 2)
	args := []string{"-data", t.TempDir(), "-kafka-port", strconv.Itoa(ports[0]), "-registry-port", strconv.Itoa(ports[1])}
	lk := start(t, baseEnv(), "localkafka", args...)
	m := lk.waitFor("stdout", exportLine)
	shared := busEnv(m)
	echo := start(t, shared, "salctl", "echo", "Example.scalars", "-n", "2", "-json")
	echo.waitFor("stderr", regexp.MustCompile(`salctl echo: listening on lsst\.sal\.Example\.scalars`))
	r := mustRun(t, shared, "salctl", "pub", "Example", "scalars", `{"int0": 1}`)
	if !strings.Contains(r.stdout, "to lsst.sal.Example.scalars [0] offset 0") {
		t.Errorf("pub before the restart\n%s", r)
	}
	echo.waitFor("stdout", regexp.MustCompile(`"int0":1,`))

	lk.stop()
	// The ports of the stopped process may take the kernel a moment to free.
	for try := 0; ; try++ {
		lk = start(t, baseEnv(), "localkafka", args...)
		if _, ok := lk.tryWaitFor("stdout", exportLine); ok {
			break
		}
		if try == 20 || !strings.Contains(lk.text("stderr"), "address already in use") {
			t.Fatalf("localkafka %s again\n%s", strings.Join(args, " "), lk.dump())
		}
		time.Sleep(100 * time.Millisecond)
	}
	r = mustRun(t, shared, "salctl", "pub", "Example", "scalars", `{"int0": 2}`)
	if !strings.Contains(r.stdout, "to lsst.sal.Example.scalars [0] offset 1") {
		t.Errorf("pub after the restart: want offset 1, after the record from before\n%s", r)
	}
	if code := echo.wait(); code != 0 || !regexp.MustCompile(`"offset":0,.*"int0":1,(?s:.*)"offset":1,.*"int0":2,`).MatchString(echo.text("stdout")) {
		t.Errorf("echo across the restart of localkafka -data (exit %d)\n%s\n%s", code, echo.dump(), lk.dump())
	}
}

// freePorts returns n distinct loopback ports that were free a moment
// ago (held together while chosen, so the kernel cannot give one twice).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// TestRealBroker runs write, read and salctl echo against the bus of the
// LSST_* variables, when they name one (as CI does where a broker runs).
func TestRealBroker(t *testing.T) {
	broker, reg := os.Getenv("LSST_KAFKA_BROKER_ADDR"), os.Getenv("LSST_SCHEMA_REGISTRY_URL")
	if broker == "" || reg == "" {
		t.Skip("LSST_KAFKA_BROKER_ADDR and LSST_SCHEMA_REGISTRY_URL are not both set: no real broker to test against")
	}
	t.Parallel()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TS_XML_DIR=") && !strings.HasPrefix(kv, "LSST_TOPIC_SUBNAME=") {
			env = append(env, kv)
		}
	}
	// A subname of our own: topics nobody else reads or writes.
	env = append(env, fmt.Sprintf("LSST_TOPIC_SUBNAME=smoke%d", rand.Uint32()))

	// -last 20: echo looks up where the partition ends just after its
	// "listening" line; should the writes below come first, it still shows
	// all 20 (the topics are this test's own).
	echo := start(t, env, "salctl", "echo", "Example.scalars", "-n", "20", "-last", "20", "-json")
	echo.waitFor("stderr", regexp.MustCompile(`salctl echo: listening on `))
	read := start(t, env, "read", "-n", "20", "-t", "Example", "scalars")
	read.waitFor("stderr", regexp.MustCompile(`read: reading `))
	r := mustRun(t, env, "write", "-n", "20", "-acks", "all", "Example", "scalars")
	if m := perfLine.FindStringSubmatch(r.stdout); m == nil || m[1] != "20" || strings.Contains(r.stderr, "no Kafka broker configured") {
		t.Errorf("write to %s\n%s", broker, r)
	}
	if code := echo.wait(); code != 0 || count(regexp.MustCompile(`(?m)^\{"topic":"lsst\.smoke\d+\.Example\.scalars",`), echo.text("stdout")) != 20 {
		t.Errorf("echo on %s (exit %d)\n%s", broker, code, echo.dump())
	}
	if code := read.wait(); code != 0 {
		t.Errorf("read on %s exited %d\n%s", broker, code, read.dump())
	} else if m := readLine.FindStringSubmatch(read.text("stdout")); m == nil || m[1] != "20" {
		t.Errorf("read -t on %s\n%s", broker, read.dump())
	}
}
