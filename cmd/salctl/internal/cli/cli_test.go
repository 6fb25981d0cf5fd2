package cli_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestStatus(t *testing.T) {
	for _, c := range []struct {
		err     error
		sig     os.Signal
		code    int
		printed string
	}{
		{nil, nil, 0, ""},
		{flag.ErrHelp, nil, 0, ""},
		{cli.Usagef("bad %s", "flag"), nil, 2, "p: bad flag\nrun 'p -h' for usage\n"},
		{fmt.Errorf("wrapped: %w", cli.UsageError{Msg: "x"}), nil, 2, "p: wrapped: x\nrun 'p -h' for usage\n"},
		{errors.New("broken"), nil, 1, "p: broken\n"},
		{fmt.Errorf("X: %w", cli.NotRunningError{Msg: "not running"}), nil, 3, "p: X: not running\n"},
		{context.Canceled, os.Interrupt, 130, "p: interrupted\n"},
		{nil, os.Interrupt, 130, "p: interrupted\n"},
		{errors.New("half done"), syscall.SIGTERM, 143, "p: half done\np: terminated\n"},
	} {
		var b strings.Builder
		if code := cli.Status(&b, "p", c.err, true, c.sig); code != c.code || b.String() != c.printed {
			t.Errorf("Status(%v, %v) = %d, printed %q; want %d, %q", c.err, c.sig, code, b.String(), c.code, c.printed)
		}
	}
}

func TestVersion(t *testing.T) {
	v := cli.Version("prog")
	// A test binary has the module's path and (devel), and VCS settings
	// only when the build stamps them.
	if !regexp.MustCompile(`^prog \S+ \S+, (revision [0-9a-f]+.*|no VCS revision recorded .*), go1\.\d+\S* \w+/\w+$`).MatchString(v) {
		t.Errorf("Version = %q", v)
	}
}

func example(t *testing.T) *salxml.Component {
	t.Helper()
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEnums names the generic enumerations, field-level ones and
// file-level ones matched by class name, and nothing else.
func TestEnums(t *testing.T) {
	e := cli.NewEnums(example(t))
	for _, c := range []struct {
		topic, field string
		v            any
		want         string
	}{
		{"logevent_summaryState", "summaryState", int32(2), "2 (ENABLED)"},
		{"logevent_summaryState", "summaryState", int32(9), "9"},
		{"ackcmd", "ack", int32(303), "303 (CMD_COMPLETE)"},
		{"ackcmd", "ack", -302, "-302 (CMD_FAILED)"}, // Tap's int
		{"logevent_logLevel", "level", int32(20), "20 (INFO)"},
		{"logevent_scalars", "int0", int32(1), "1 (Int0Enum_One)"},
		{"logevent_arrays", "int0", []int32{0, 4, 5}, "[0, 4, 5]"}, // arrays unnamed
		{"status", "mode", int32(3), "3 (Slewing)"},                // file-level Mode, prefix stripped
		{"scalars", "int0", int32(1), "1"},                         // telemetry scalars has none
		{"ackcmd", "error", int32(1), "1"},
		{"status", "temperature", []float32{1.5, 2}, "[1.5, 2]"},
	} {
		if got := e.Label(c.topic, c.field, c.v); got != c.want {
			t.Errorf("Label(%s.%s, %v) = %q, want %q", c.topic, c.field, c.v, got, c.want)
		}
	}
	if en := e.Field("logevent_arrays", "int0"); en == nil || !slices.Equal(en.Names(), []string{"Int0ValueEnum_Zero=0", "Int0ValueEnum_Two=2", "Int0ValueEnum_Four=4", "Int0ValueEnum_Five=5"}) {
		t.Errorf("logevent_arrays.int0 enumeration: %+v", en)
	}
	if v, ok := e.Field("status", "mode").Value("tracking"); !ok || v != 2 {
		t.Errorf("Value(tracking) = %d, %v", v, ok)
	}
	generic := cli.NewEnums(nil)
	if got := generic.Label("logevent_summaryState", "summaryState", int32(5)); got != "5 (STANDBY)" {
		t.Errorf("generic only: %q", got)
	}
	if got := generic.Label("status", "mode", int32(3)); got != "3" {
		t.Errorf("generic only, a component's enumeration: %q", got)
	}
	rec := map[string]any{"summaryState": int32(1), "private_seqNum": int32(4)}
	if got := e.Labels("logevent_summaryState", []string{"private_seqNum", "summaryState"}, rec); !slices.Equal(got, []string{"summaryState 1 (DISABLED)"}) {
		t.Errorf("Labels = %q", got)
	}
}

func TestFormatAck(t *testing.T) {
	a := &sal.Ack{Code: sal.CmdComplete, Result: "Done"}
	if got := cli.FormatAck(a); got != `ack 303 (CMD_COMPLETE), error 0, result "Done"` {
		t.Errorf("FormatAck = %q", got)
	}
	a = &sal.Ack{Code: sal.CmdInProgress, Result: "working", Timeout: 1500 * time.Millisecond, CmdType: 3}
	if got := cli.FormatAck(a); got != `ack 301 (CMD_INPROGRESS), error 0, result "working", timeout 1.5s` {
		t.Errorf("FormatAck in progress = %q", got)
	}
	c := example(t)
	want := ""
	for _, tp := range c.TopicsOf(salxml.Command) {
		if c.CmdType(tp.SALName) == 3 {
			want = tp.Name()
		}
	}
	if got := cli.CommandOfAck(c, a); got != want || want == "" {
		t.Errorf("CommandOfAck(cmdtype 3) = %q, want %q", got, want)
	}
}

func TestParseValue(t *testing.T) {
	c := example(t)
	set, arr := c.Command("setScalars"), c.Command("setArrays")
	for _, tc := range []struct {
		field, text string
		want        any
	}{
		{"boolean0", "Yes", true},
		{"byte0", "0xff", uint8(255)},
		{"short0", "-32768", int16(-32768)},
		{"unsignedInt0", "4294967295", uint32(4294967295)},
		{"longLong0", "-9", int64(-9)},
		{"float0", "1.5", float32(1.5)},
		{"string0", " kept as it is ", " kept as it is "},
	} {
		got, err := cli.ParseValue(set.Field(tc.field), nil, tc.text)
		if err != nil || got != tc.want {
			t.Errorf("ParseValue(%s, %q) = %#v, %v; want %#v", tc.field, tc.text, got, err, tc.want)
		}
	}
	got, err := cli.ParseValue(set.Field("double0"), nil, "-Infinity")
	if err != nil || !math.IsInf(got.(float64), -1) {
		t.Errorf("-Infinity: %v, %v", got, err)
	}
	got, err = cli.ParseValue(arr.Field("unsignedShort0"), nil, "[1, 2,3 ,4, 65535]")
	if err != nil || !slices.Equal(got.([]uint16), []uint16{1, 2, 3, 4, 65535}) {
		t.Errorf("array: %v, %v", got, err)
	}
	en := cli.NewEnums(c).Field("status", "mode")
	got, err = cli.ParseValue(c.Telemetry("status").Field("mode"), en, "Slewing")
	if err != nil || got != int32(3) {
		t.Errorf("enumeration name: %v, %v", got, err)
	}
	for _, bad := range []struct {
		f    *salxml.Field
		text string
		want string
	}{
		{set.Field("short0"), "40000", `field short0: "40000" is not a short (a whole number from -32768 to 32767)`},
		{set.Field("unsignedShort0"), "-1", `is not an unsigned short (a whole number from 0 to 65535)`},
		{c.Telemetry("status").Field("mode"), "Parked", `or one of Idle=1, Tracking=2, Slewing=3)`},
		{arr.Field("double0"), "1,2,x,4,5", `field double0: "x" is not a double (a number, NaN, Inf or -Inf) (element 2 of 5)`},
		{arr.Field("boolean0"), "", `field boolean0: want 5 values (boolean[5], comma separated), got 0`},
	} {
		var e *cli.Enum
		if bad.f.Name == "mode" {
			e = en
		}
		if _, err := cli.ParseValue(bad.f, e, bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseValue(%s, %q): %v, want %q", bad.f.Name, bad.text, err, bad.want)
		}
	}
}

func TestJSONFloats(t *testing.T) {
	set, arr := example(t).Command("setScalars"), example(t).Command("setArrays")
	rec := map[string]any{"double0": "NaN", "float0": "-Infinity", "string0": "NaN", "int0": "Inf"}
	cli.JSONFloats(set, rec)
	if d, ok := rec["double0"].(float64); !ok || !math.IsNaN(d) {
		t.Errorf("double0 %#v", rec["double0"])
	}
	if f, ok := rec["float0"].(float64); !ok || !math.IsInf(f, -1) {
		t.Errorf("float0 %#v", rec["float0"])
	}
	if rec["string0"] != "NaN" || rec["int0"] != "Inf" {
		t.Errorf("a string field or an integer one changed: %#v", rec)
	}
	a := map[string]any{"double0": []any{1.0, "Infinity", "nan", "x", 2.0}}
	cli.JSONFloats(arr, a)
	el := a["double0"].([]any)
	if !math.IsInf(el[1].(float64), 1) || !math.IsNaN(el[2].(float64)) || el[3] != "x" {
		t.Errorf("array elements %#v", el)
	}
	// What JSONValue writes reads back.
	if s := cli.ToJSON([]any{math.NaN(), math.Inf(1), math.Inf(-1)}); s != `["NaN","Infinity","-Infinity"]` {
		t.Errorf("ToJSON = %s", s)
	}
}

func TestEnumValues(t *testing.T) {
	c := example(t)
	e := cli.NewEnums(c)
	n := 0
	pick := func(k int) int { n++; return n % k }
	st := c.Event("summaryState")
	rec := map[string]any{"summaryState": int32(77)}
	cli.EnumValues(st, e, rec, pick)
	if v := rec["summaryState"].(int32); v < 1 || v > 5 {
		t.Errorf("summaryState %d is not a state", v)
	}
	arrays := c.Event("arrays")
	rec = map[string]any{}
	cli.EnumValues(arrays, e, rec, pick)
	for _, v := range rec["int0"].([]int32) {
		if !slices.Contains([]int32{0, 2, 4, 5}, v) {
			t.Errorf("arrays.int0 element %d not of its enumeration", v)
		}
	}
}

// TestPlainHandler: the SDK's log records as plain lines of the program's,
// with no time or level= key.
func TestPlainHandler(t *testing.T) {
	var b strings.Builder
	log := slog.New(cli.PlainHandler(&b, "salctl command", false)).With("remote", "Example:3")
	log.Info("not shown")
	log.Warn("remote: no heartbeat", "seqNum", 7)
	log.WithGroup("g").Error("broken", "k", "v")
	want := "salctl command: warning: remote: no heartbeat (remote=Example:3, seqNum=7)\n" +
		"salctl command: error: broken (remote=Example:3, g.k=v)\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// TestFindTopicBare: a bare event or command name names its topic.
func TestFindTopicBare(t *testing.T) {
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"summaryState": "logevent_summaryState", "setScalars": "command_setScalars", "evt_summaryState": "logevent_summaryState", "scalars": "scalars"} {
		if tp, err := cli.FindTopic(c, name, ""); err != nil || tp.SALName != want {
			t.Errorf("FindTopic(%q) = %v, %v; want %s", name, tp, err, want)
		}
	}
	if _, err := cli.FindTopic(c, "summaryStat", ""); err == nil || !strings.Contains(err.Error(), "did you mean") {
		t.Errorf("FindTopic(summaryStat): %v; want a did-you-mean", err)
	}
}

// TestEnums_ByDescription: a field that ts_xml links to a file-level
// enumeration only in its description ("Enabled state; an EnabledState
// enum.") is named too; a mask ("a LimitsMask enum mask") is not.
func TestEnums_ByDescription(t *testing.T) {
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		t.Skip("TS_XML_DIR is unset: MTDome is only in ts_xml")
	}
	defs, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := defs.Component("MTDome")
	if err != nil {
		t.Fatal(err)
	}
	e := cli.NewEnums(c)
	// EnabledState_Disabled, _Enabled, _Fault: numbered from 1, as ts_idl.
	if got := e.Label("logevent_azEnabled", "state", int32(2)); got != "2 (Enabled)" {
		t.Errorf("MTDome azEnabled.state 2: %q, want 2 (Enabled)", got)
	}
	for _, c := range []struct{ desc, want string }{
		{"Enabled state; an EnabledState enum.", "EnabledState"},
		{"Motion state, as an AxisMotionState enum.", "AxisMotionState"},
		{"The value translates back to the AlarmSeverity enum values.", "AlarmSeverity"},
		{"Limits, as a LimitsMask enum mask.", ""},
		{"Enumeration of valid substates", ""},
	} {
		if got := cli.DescribedClass(c.desc); got != c.want {
			t.Errorf("describedClass(%q) = %q, want %q", c.desc, got, c.want)
		}
	}
}
