package xml_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	salxml "github.com/lsst-sal/salgo/xml"
)

const subsystemsXML = `<?xml version="1.0" encoding="UTF-8"?>
<SALSubsystemSet>
  <SALSubsystem>
    <Name>Demo</Name>
    <Description>demo</Description>
    <IndexEnumeration>no</IndexEnumeration>
    <AddedGenerics>csc</AddedGenerics>
  </SALSubsystem>
</SALSubsystemSet>
`

const genericsXML = `<?xml version="1.0" encoding="UTF-8"?>
<SALObjects>
<SALCommandSet>
  <SALCommand>
    <Subsystem>SALGeneric</Subsystem>
    <EFDB_Topic>SALGeneric_command_enable</EFDB_Topic>
    <Description>Enable.</Description>
    <Category>csc</Category>
  </SALCommand>
</SALCommandSet>
<SALEventSet>
  <SALEvent>
    <Subsystem>SALGeneric</Subsystem>
    <EFDB_Topic>SALGeneric_logevent_heartbeat</EFDB_Topic>
    <Description>Alive.</Description>
    <Category>mandatory</Category>
    <item>
      <EFDB_Name>heartbeat</EFDB_Name>
      <Description>x</Description>
      <IDL_Type>boolean</IDL_Type>
      <Units>unitless</Units>
      <Count>1</Count>
    </item>
  </SALEvent>
</SALEventSet>
</SALObjects>
`

func demoFS(commands string) fstest.MapFS {
	return fstest.MapFS{
		"SALSubsystems.xml":      {Data: []byte(subsystemsXML)},
		"SALGenerics.xml":        {Data: []byte(genericsXML)},
		"Demo/Demo_Commands.xml": {Data: []byte(commands)},
	}
}

func cmdFile(items string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<SALCommandSet>
  <SALCommand>
    <Subsystem>Demo</Subsystem>
    <EFDB_Topic>Demo_command_go</EFDB_Topic>
    <Description>Go.</Description>
` + items + `
  </SALCommand>
</SALCommandSet>
`
}

func item(name, typ, count string) string {
	return `    <item>
      <EFDB_Name>` + name + `</EFDB_Name>
      <Description>d</Description>
      <IDL_Type>` + typ + `</IDL_Type>
      <Units>unitless</Units>
      <Count>` + count + `</Count>
    </item>`
}

func TestParse_MalformedFixtures(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
		line             int
	}{
		{"unclosed tag", strings.Replace(cmdFile(item("a", "int", "1")), "</Description>\n", "\n", 1), "malformed XML", 0},
		{"unknown IDL_Type", cmdFile(item("a", "int", "1") + "\n" + item("b", "quad", "1")), `unknown IDL_Type "quad"`, 14},
		{"bad Count", cmdFile(item("a", "double", "three")), `bad Count "three"`, 7},
		{"zero Count", cmdFile(item("a", "double", "0")), `bad Count "0"`, 7},
		{"string array", cmdFile(item("a", "string", "4")), "a string cannot be an array", 7},
		{"duplicate field", cmdFile(item("a", "int", "1") + "\n" + item("a", "int", "1")), "duplicate field a", 14},
		{"private field name", cmdFile(item("private_seqNum", "int", "1")), "reserved for private fields", 7},
		{"duplicate topic", strings.Replace(cmdFile(""), "</SALCommandSet>", `  <SALCommand>
    <EFDB_Topic>Demo_command_go</EFDB_Topic>
  </SALCommand>
</SALCommandSet>`, 1), "duplicate topic command_go", 9},
		{"duplicate of a generic", strings.Replace(cmdFile(""), "Demo_command_go", "Demo_command_enable", 1), "duplicate topic command_enable", 3},
		{"wrong component prefix", strings.Replace(cmdFile(""), "Demo_command_go", "Other_command_go", 1), `does not start with "Demo_"`, 3},
		{"event in command file", strings.Replace(cmdFile(""), "Demo_command_go", "Demo_logevent_go", 1), "must be named Demo_command_", 3},
		{"mixed enum values", cmdFile(strings.Replace(item("a", "int", "1"), "</Count>", "</Count><Enumeration>A_x=1, A_y</Enumeration>", 1)), "values for some entries but not all", 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := salxml.OpenFS(demoFS(tc.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Component("Demo")
			if err == nil {
				t.Fatal("no error")
			}
			var pe *salxml.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if pe.File != "Demo/Demo_Commands.xml" {
				t.Errorf("error names file %q", pe.File)
			}
			if pe.Line == 0 || (tc.line != 0 && pe.Line != tc.line) {
				t.Errorf("error %q: line %d, want %d", err, pe.Line, tc.line)
			}
		})
	}
}

func TestParse_UnknownGeneric(t *testing.T) {
	fs := demoFS(cmdFile(""))
	fs["SALSubsystems.xml"] = &fstest.MapFile{Data: []byte(strings.Replace(subsystemsXML, "<AddedGenerics>csc", "<AddedGenerics>csc, logevent_nope", 1))}
	d, err := salxml.OpenFS(fs, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Component("Demo")
	if err == nil || !strings.Contains(err.Error(), `unknown generic topic "logevent_nope"`) || !errors.Is(err, salxml.ErrInvalid) {
		t.Fatalf("got %v", err)
	}
}

func TestParse_UnknownComponent(t *testing.T) {
	_, err := salxml.Embedded().Component("Exampel")
	if !errors.Is(err, salxml.ErrUnknownComponent) || !strings.Contains(err.Error(), "did you mean Example?") {
		t.Fatalf("got %v", err)
	}
}

func TestEmbedded_Example(t *testing.T) {
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Indexed {
		t.Error("Example should be indexed")
	}
	set := c.Command("setScalars")
	if set == nil {
		t.Fatal("no setScalars")
	}
	if f := set.Field("string0"); f == nil || f.MaxLen() != 20 {
		t.Errorf("string0: %+v", f)
	}
	if got := c.CmdType("command_disable"); got < 0 {
		t.Errorf("cmdtype of disable: %d", got)
	}
	ev := c.Event("arrays")
	if ev == nil || ev.Field("int0").Enumeration == nil {
		t.Fatal("arrays.int0 has no enumeration")
	}
	e := ev.Field("int0").Enumeration
	for name, want := range map[string]int64{"Int0ValueEnum_Four": 4, "Int0ValueEnum_Five": 5} {
		if v, ok := e.Lookup(name); !ok || v != want {
			t.Errorf("%s = %d, want %d", name, v, want)
		}
	}
	if len(c.Enumerations) < 2 {
		t.Errorf("file-level enumerations: %d", len(c.Enumerations))
	}
	// The ack topic's layout is fixed by the reference.
	ack := c.Ack()
	names := []string{}
	for _, f := range ack.Fields {
		names = append(names, f.Name)
	}
	want := "salIndex private_sndStamp private_rcvStamp private_efdStamp private_kafkaStamp private_seqNum private_revCode private_identity private_origin ack error result identity origin cmdtype timeout"
	if strings.Join(names, " ") != want {
		t.Errorf("ackcmd fields: %s", names)
	}
	if k := set.Key(3); k != `{ "name": "Example", "index": 3, "topic": "command_setScalars" }` {
		t.Errorf("key %s", k)
	}
	if tel := c.Telemetry("scalars"); tel == nil || tel.Key(3) != "" {
		t.Errorf("telemetry key must be empty")
	}
}

func TestLocate_Layouts(t *testing.T) {
	dir := tsXMLDir(t)
	want, err := salxml.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "sal_interfaces")} {
		got, err := salxml.Locate(d)
		if err != nil || got != want {
			t.Errorf("Locate(%s) = %s, %v; want %s", d, got, err, want)
		}
	}
	if _, err := salxml.Locate(t.TempDir()); err == nil {
		t.Error("Locate of an empty folder succeeded")
	}
}

// TestRealCorpus_SchemaTextMatchesPython renders every topic with
// scripts/refschema.py (Python's ElementTree and json.dumps) and compares
// the text and revCode of each with ours.
func TestRealCorpus_SchemaTextMatchesPython(t *testing.T) {
	dir := tsXMLDir(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: cannot run the Python cross-check")
	}
	sal, err := salxml.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join("..", "scripts", "refschema.py"), sal).Output()
	if err != nil {
		t.Fatalf("refschema.py: %v", err)
	}
	d, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var ref struct{ Component, Sal_name, Schema, Revcode string }
		if err := json.Unmarshal(sc.Bytes(), &ref); err != nil {
			t.Fatal(err)
		}
		c, err := d.Component(ref.Component)
		if err != nil {
			t.Fatal(err)
		}
		tp := c.Topic(ref.Sal_name)
		if tp == nil {
			t.Errorf("%s.%s missing", ref.Component, ref.Sal_name)
			continue
		}
		if tp.AvroSchema() != ref.Schema || tp.RevCode() != ref.Revcode {
			t.Errorf("%s.%s: schema text or revCode differs from Python's", ref.Component, ref.Sal_name)
		}
		n++
	}
	if n != 3348 {
		t.Errorf("compared %d topics, want 3348", n)
	}
}

func FuzzParseComponent(f *testing.F) {
	f.Add(cmdFile(item("a", "int", "1")))
	f.Add(cmdFile(item("a", "string", "1") + item("b", "double", "3")))
	f.Add(cmdFile(strings.Replace(item("a", "int", "1"), "</Count>", "</Count><Enumeration>A_x=0x1, A_y=04</Enumeration>", 1)))
	f.Add("<SALCommandSet><SALCommand><EFDB_Topic>Demo_command_x")
	f.Add("<?xml version=\"1.0\"?><!-- c --><SALCommandSet/>")
	f.Fuzz(func(t *testing.T, file string) {
		d, err := salxml.OpenFS(demoFS(file), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Component("Demo")
		if err != nil {
			var pe *salxml.ParseError
			if !errors.As(err, &pe) || pe.File == "" {
				t.Fatalf("error without file: %v", err)
			}
			return
		}
		for _, tp := range c.Topics {
			_ = tp.AvroSchema()
			if !json.Valid([]byte(tp.AvroSchema())) {
				t.Fatalf("invalid schema JSON for %s", tp)
			}
		}
	})
}

func TestFindTopic(t *testing.T) {
	c, _ := salxml.Embedded().Component("Example")
	for _, name := range []string{"logevent_scalars", "evt_scalars", "tel_status", "status", "cmd_setScalars", "ack_ackcmd"} {
		if _, err := c.FindTopic(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := c.FindTopic("evt_scalar")
	if !errors.Is(err, salxml.ErrUnknownTopic) || !strings.Contains(err.Error(), "did you mean") {
		t.Errorf("got %v", err)
	}
}

// TestComponent_Lookup: a topic of one kind is found by its bare, SAL or
// attribute name; an unknown name, or one of another kind, is an error
// naming the component and the close matches.
func TestComponent_Lookup(t *testing.T) {
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind salxml.Kind
		name string
		want string
	}{
		{salxml.Event, "summaryState", "logevent_summaryState"},
		{salxml.Event, "logevent_summaryState", "logevent_summaryState"},
		{salxml.Event, "evt_summaryState", "logevent_summaryState"},
		{salxml.Event, "scalars", "logevent_scalars"},
		{salxml.Telemetry, "scalars", "scalars"},
		{salxml.Telemetry, "tel_scalars", "scalars"},
		{salxml.Command, "setScalars", "command_setScalars"},
		{salxml.Command, "cmd_setScalars", "command_setScalars"},
		{salxml.Command, "command_setScalars", "command_setScalars"},
	} {
		got, err := c.Lookup(tc.kind, tc.name)
		if err != nil || got.SALName != tc.want {
			t.Errorf("Lookup(%s, %q): %v, %v; want %s", tc.kind, tc.name, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		kind salxml.Kind
		name string
		want string
	}{
		{salxml.Event, "sumaryState", `xml: unknown SAL topic: Example has no event "sumaryState" (did you mean summaryState?)`},
		{salxml.Event, "evt_sumaryState", `(did you mean summaryState?)`},
		{salxml.Telemetry, "summaryState", `Example has no telemetry "summaryState"`},
		{salxml.Command, "summaryState", `Example has no command "summaryState"`},
		{salxml.Command, "zzzzzzzzzz", `Example has no command "zzzzzzzzzz" (it has `},
	} {
		_, err := c.Lookup(tc.kind, tc.name)
		if !errors.Is(err, salxml.ErrUnknownTopic) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Lookup(%s, %q): %v; want an ErrUnknownTopic containing %q", tc.kind, tc.name, err, tc.want)
		}
	}
}
