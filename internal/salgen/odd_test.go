package salgen_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lsst-sal/salgo/internal/salgen"
	salxml "github.com/lsst-sal/salgo/xml"
)

// oddItem is an XML field.
func oddItem(name, typ string, count int, desc string) string {
	return fmt.Sprintf("<item><EFDB_Name>%s</EFDB_Name><Description>%s</Description><IDL_Type>%s</IDL_Type><IDL_Size>8</IDL_Size><Units>unitless</Units><Count>%d</Count></item>", name, desc, typ, count)
}

// oddDefs are definitions of a component whose names collide every way
// salgen has to resolve: a telemetry topic named like a method of the
// embedded Remote and CSC (start) and like the package's Remote type,
// topic types that meet after capitalisation (evtFoo, the event foo),
// fields named like Record methods and each other and starting with "_",
// a command named like a method of the embedded CSC (func), an
// enumeration named like a topic type with entries that meet after
// CamelCase and a value beyond int32, a SummaryStates class of its own (as
// MTM1M3's), a SalRetCode class whose constants meet the generic ack
// codes', and descriptions that name
// packages ("errors.", "slices.").
func oddDefs(t *testing.T) *salxml.Definitions {
	t.Helper()
	generics, err := os.ReadFile(filepath.Join("..", "..", "xml", "example", "SALGenerics.xml"))
	if err != nil {
		t.Fatal(err)
	}
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	topic := func(kind, name string, items ...string) string {
		return fmt.Sprintf("<SAL%[1]s><Subsystem>Odd</Subsystem><EFDB_Topic>Odd_%[2]s</EFDB_Topic><Description>Counts errors. Uses slices.</Description>%[3]s</SAL%[1]s>", kind, name, strings.Join(items, ""))
	}
	fsys := fstest.MapFS{
		"SALSubsystems.xml": {Data: []byte(head + `<SALSubsystemSet><SALSubsystem><Name>Odd</Name><Description>Odd names.</Description><IndexEnumeration>no</IndexEnumeration><AddedGenerics>csc</AddedGenerics></SALSubsystem></SALSubsystemSet>`)},
		"SALGenerics.xml":   {Data: generics},
		"Odd/Odd_Telemetry.xml": {Data: []byte(head + "<SALTelemetrySet>" +
			topic("Telemetry", "start", oddItem("toMap", "double", 1, "errors."), oddItem("ToMap", "float", 3, "x"), oddItem("_x", "string", 1, "s"), oddItem("private", "boolean", 1, "p"), oddItem("validate", "unsigned int", 2, "v")) +
			topic("Telemetry", "remote", oddItem("x", "long long", 1, "x")) +
			topic("Telemetry", "evtFoo", oddItem("x", "byte", 1, "x")) +
			"</SALTelemetrySet>")},
		"Odd/Odd_Events.xml": {Data: []byte(head + "<SALEventSet><Enumeration>Start_A_B=1, Start_AB=2, Start_Big=0x7fffffffff</Enumeration>" +
			"<Enumeration>SummaryStates_Up=7, SummaryStates_Down=8</Enumeration><Enumeration>SalRetCode_CmdAck</Enumeration>" +
			topic("Event", "logevent_foo", oddItem("errors", "short", 1, "e")) +
			"</SALEventSet>")},
		"Odd/Odd_Commands.xml": {Data: []byte(head + "<SALCommandSet>" +
			topic("Command", "command_func", oddItem("fromMap", "unsigned short", 1, "f")) +
			"</SALCommandSet>")},
	}
	defs, err := salxml.OpenFS(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestGenerate_OddNames: the package of a component whose names collide
// every way builds, passes go vet, and its records pass recordtest.Check.
func TestGenerate_OddNames(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command: not with -short")
	}
	defs := oddDefs(t)
	out := newScratch(t)
	if err := salgen.Generate(defs, "Odd", out, salgen.Options{Version: "odd"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "odd", "records_test.go"), []byte(fmt.Sprintf(recordsTest, "odd", scratchModule)), 0o644); err != nil {
		t.Fatal(err)
	}
	use := `package odd_test

import (
	"context"
	"testing"

	"github.com/lsst-sal/salgo/topics"

	"` + scratchModule + `/odd"
)

func TestNames(t *testing.T) {
	// Start is still the embedded type's.
	_ = []any{(*odd.Remote).TelStart, (*odd.Remote).Remote_, (*odd.Remote).EvtFoo, (*odd.Remote).EvtFoo_, (*odd.Remote).CmdFunc,
		(*odd.CSC).TelStart, (*odd.CSC).HandleCmdFunc, (*odd.Controller).HandleCmdFunc, (*odd.Controller).HandleStart}
	var start func(*odd.Remote, context.Context) error = (*odd.Remote).Start
	_ = start
	s := odd.Start{ToMap_: 1, ToMap__: [3]float32{}, X_x: "", Private_: true, Validate_: [2]uint32{}}
	_ = s
	_ = odd.EvtFoo{Errors: 1}
	_ = odd.EvtFoo_{X: 1}
	_ = odd.CmdFunc{FromMap_: 1}
	if odd.Start_AB != 1 || odd.Start_Ab != 2 || odd.Start_Big != 0x7fffffffff || odd.Start_Big.String() != "Big" || odd.Start_(5).String() != "Start_(5)" {
		t.Error("enumeration")
	}
	// Its own SummaryStates, not the generic one; its own SalRetCode, and
	// the generic ack codes under the names left.
	if odd.SummaryStatesUp != 7 || odd.SummaryStatesDown.String() != "Down" || odd.SalRetCodeCmdAck != 1 {
		t.Error("own enumerations")
	}
	var ack topics.AckCode = odd.SalRetCode_CmdAck
	if ack != topics.CmdAck || odd.SalRetCode_CmdComplete != topics.CmdComplete {
		t.Error("generic ack codes")
	}
}
`
	if err := os.WriteFile(filepath.Join(out, "odd", "names_test.go"), []byte(use), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a guard
	defer cancel()
	for _, args := range [][]string{{"vet", "./odd"}, {"test", "-count=1", "./odd"}} {
		if text, err := goCmd(ctx, out, args...); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, text)
		}
	}
}
