package xml_test

import (
	"os"
	"reflect"
	"regexp"
	"testing"

	salxml "github.com/lsst-sal/salgo/xml"
)

// description matches a "description" member of a schema text: Python's
// json.dumps of a string.
var description = regexp.MustCompile(`"description": "(?:[^"\\]|\\.)*"`)

// wireSchema is a topic's Avro schema text with every description
// emptied: what must match for the wire (record and field names, types,
// defaults, units, order). Descriptions enter the text, so the revCode
// of our Script topics differs from ts_xml's (salobj does not check it).
func wireSchema(t *salxml.Topic) string {
	return description.ReplaceAllString(t.AvroSchema(), `"description": ""`)
}

// enumEntries are an enumeration's names and values, where it is.
func enumEntries(e *salxml.Enumeration) any {
	if e == nil {
		return nil
	}
	return []any{e.Class, e.Entries, e.Explicit}
}

// TestEmbeddedScript_MatchesTSXML: the embedded Script component, our
// own XML, has ts_xml's interface: the same index and generics, the same
// topics in the same order with the same schemas but for descriptions,
// the same string bounds, and the same file- and field-level
// enumerations. It runs when TS_XML_DIR is set.
func TestEmbeddedScript_MatchesTSXML(t *testing.T) {
	dir := os.Getenv(salxml.EnvDir)
	if dir == "" {
		t.Skip("TS_XML_DIR is unset: nothing to compare the embedded Script component with")
	}
	real, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := real.Component("Script")
	if err != nil {
		t.Fatal(err)
	}
	got, err := salxml.Embedded().Component("Script")
	if err != nil {
		t.Fatal(err)
	}
	if got.IndexEnumeration != want.IndexEnumeration || !reflect.DeepEqual(got.AddedGenerics, want.AddedGenerics) {
		t.Errorf("index %q generics %q, want %q %q", got.IndexEnumeration, got.AddedGenerics, want.IndexEnumeration, want.AddedGenerics)
	}
	var names, wantNames []string
	for _, tp := range got.Topics {
		names = append(names, tp.SALName)
	}
	for _, tp := range want.Topics {
		wantNames = append(wantNames, tp.SALName)
	}
	if !reflect.DeepEqual(names, wantNames) {
		t.Fatalf("topics:\n got %q\nwant %q", names, wantNames)
	}
	for i, w := range want.Topics {
		g := got.Topics[i]
		if gs, ws := wireSchema(g), wireSchema(w); gs != ws {
			t.Errorf("%s: schema without descriptions:\n got %s\nwant %s", w.SALName, gs, ws)
		}
		for j, wf := range w.Fields {
			gf := g.Fields[j]
			if gf.Size != wf.Size {
				t.Errorf("%s.%s: IDL_Size %d, want %d", w.SALName, wf.Name, gf.Size, wf.Size)
			}
			if ge, we := enumEntries(gf.Enumeration), enumEntries(wf.Enumeration); !reflect.DeepEqual(ge, we) {
				t.Errorf("%s.%s: enumeration %v, want %v", w.SALName, wf.Name, ge, we)
			}
		}
	}
	var ge, we []any
	for _, e := range got.Enumerations {
		ge = append(ge, enumEntries(e))
	}
	for _, e := range want.Enumerations {
		we = append(we, enumEntries(e))
	}
	if !reflect.DeepEqual(ge, we) {
		t.Errorf("file-level enumerations:\n got %v\nwant %v", ge, we)
	}
}
