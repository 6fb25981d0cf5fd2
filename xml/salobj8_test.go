package xml_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/internal/wirefixture"
	salxml "github.com/lsst-sal/salgo/xml"
)

// The oracle tests of this file hold the definitions to what the real
// ts_salobj 8.2.12 wrote and registered in a TestCsc session (the
// salobj8-wire fixture, see internal/wirefixture), with ts_xml 28.0.1.

// fixtureTest returns ts_xml's Test component, or skips.
func fixtureTest(t *testing.T) *salxml.Component {
	t.Helper()
	d, err := salxml.Open(tsXMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Component(wirefixture.Component)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fixtureTopic returns the topic of a SAL name, failing t if Test lacks it.
func fixtureTopic(t *testing.T, c *salxml.Component, salName, where string) *salxml.Topic {
	t.Helper()
	tp := c.Topic(salName)
	if tp == nil {
		t.Fatalf("%s: ts_xml's Test has no topic %s", where, salName)
	}
	return tp
}

// TestSalobj8_PostedSchemas checks that every schema text salobj posts
// (schemas_posted.jsonl) is byte for byte the topic's AvroSchema, under
// the topic's subject, and that there is one for every topic of Test.
func TestSalobj8_PostedSchemas(t *testing.T) {
	c := fixtureTest(t)
	posted := wirefixture.PostedSchemas(t)
	seen := map[string]bool{}
	for _, p := range posted {
		tp := fixtureTopic(t, c, wirefixture.SubjectSALName(p.Subject), p.Subject)
		seen[tp.SALName] = true
		if got := tp.Subject(wirefixture.Subname); got != p.Subject {
			t.Errorf("%s: Subject(%q) = %q", tp, wirefixture.Subname, got)
		}
		if got := tp.AvroSchema(); got != p.Schema {
			t.Errorf("%s: AvroSchema differs from the text salobj posts\ngot  %s\nwant %s", tp, got, p.Schema)
		}
	}
	for _, tp := range c.Topics {
		if !seen[tp.SALName] {
			t.Errorf("%s: salobj registered no schema for it", tp)
		}
	}
}

// TestSalobj8_RegistrySchemas checks the schemas as the registry returned
// them (schemas.jsonl, compact text): each equals the topic's AvroSchema as
// parsed JSON and, as text, json.Compact of it; each subject has version 1.
func TestSalobj8_RegistrySchemas(t *testing.T) {
	c := fixtureTest(t)
	for _, s := range wirefixture.Schemas(t) {
		tp := fixtureTopic(t, c, wirefixture.SubjectSALName(s.Subject), s.Subject)
		if s.Version != 1 || tp.Subject(wirefixture.Subname) != s.Subject {
			t.Errorf("%s: subject %s version %d", tp, s.Subject, s.Version)
		}
		var got, want any
		if err := json.Unmarshal([]byte(tp.AvroSchema()), &got); err != nil {
			t.Fatalf("%s: AvroSchema: %v", tp, err)
		}
		if err := json.Unmarshal([]byte(s.Schema), &want); err != nil {
			t.Fatalf("%s: schemas.jsonl: %v", tp, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: AvroSchema and the registry's schema differ as JSON\nours     %s\nregistry %s", tp, tp.AvroSchema(), s.Schema)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(tp.AvroSchema())); err != nil {
			t.Fatal(err)
		}
		if b.String() != s.Schema {
			t.Errorf("%s: compact AvroSchema differs from the registry's text\nours     %s\nregistry %s", tp, b.String(), s.Schema)
		}
	}
}

// TestSalobj8_Records checks, for every record salobj wrote, what the
// definitions say about it: the Kafka topic name for subname capture, the
// message key for SAL index 5 (telemetry: the empty key) and the revCode
// in private_revCode.
func TestSalobj8_Records(t *testing.T) {
	c := fixtureTest(t)
	revs := map[string]bool{}
	for _, r := range wirefixture.Records(t) {
		tp := fixtureTopic(t, c, r.SALName(), r.Topic)
		if got := tp.KafkaName(wirefixture.Subname); got != r.Topic {
			t.Errorf("line %d: KafkaName(%q) = %q, salobj wrote to %q", r.Line, wirefixture.Subname, got, r.Topic)
		}
		if got := tp.Key(wirefixture.Index); got != r.Key {
			t.Errorf("line %d: %s: Key(%d) = %q, salobj's key is %q", r.Line, tp, wirefixture.Index, got, r.Key)
		}
		if tp.Kind == salxml.Telemetry && r.Key != "" {
			t.Errorf("line %d: %s: telemetry key %q, want empty", r.Line, tp, r.Key)
		}
		if got, want := tp.RevCode(), r.String(t, "private_revCode"); got != want {
			t.Errorf("line %d: %s: RevCode %s, salobj wrote %s", r.Line, tp, got, want)
		}
		revs[tp.SALName] = true
	}
	if len(revs) != 22 {
		t.Errorf("revCodes of %d topics checked, want the 22 topics with records", len(revs))
	}
}

// TestSalobj8_CmdTypes checks that the cmdtype of every ack salobj wrote
// is CmdType of the command it answers (the command record whose
// private_seqNum and private_origin the ack echoes): the command's place
// among the sorted SAL topic names of Test.
func TestSalobj8_CmdTypes(t *testing.T) {
	c := fixtureTest(t)
	recs := wirefixture.Records(t)
	type cmdKey struct{ seq, origin int64 }
	cmds := map[cmdKey]string{}
	for _, r := range recs {
		if tp := c.Topic(r.SALName()); tp != nil && tp.Kind == salxml.Command {
			cmds[cmdKey{r.Int(t, "private_seqNum"), r.Int(t, "private_origin")}] = tp.SALName
		}
	}
	types := map[string]int64{}
	acks := 0
	for _, r := range recs {
		if r.SALName() != "ackcmd" {
			continue
		}
		acks++
		name, ok := cmds[cmdKey{r.Int(t, "private_seqNum"), r.Int(t, "origin")}]
		if !ok {
			t.Errorf("line %d: ack of seqNum %d answers no command record", r.Line, r.Int(t, "private_seqNum"))
			continue
		}
		got := r.Int(t, "cmdtype")
		if want := c.CmdType(name); got != int64(want) {
			t.Errorf("line %d: ack of %s has cmdtype %d, CmdType gives %d", r.Line, name, got, want)
		}
		types[name] = got
	}
	// The fixture's README lists these; the join above derived them.
	want := map[string]int64{"command_enable": 3, "command_exitControl": 4, "command_fault": 5, "command_setArrays": 6,
		"command_setScalars": 8, "command_standby": 9, "command_start": 10, "command_wait": 11}
	if acks != 17 || !reflect.DeepEqual(types, want) {
		t.Errorf("%d acks, cmdtypes %v; want 17 acks, %v", acks, types, want)
	}
	if n := len(c.SALTopicNames()); n != 24 {
		t.Errorf("Test has %d SAL topic names, want 24", n)
	}
}

// TestSalobj8_XMLVersion checks that Version of the ts_xml the fixture was
// written with is the softwareVersions.xmlVersion salobj published.
func TestSalobj8_XMLVersion(t *testing.T) {
	t.Setenv(salxml.EnvVersion, "")
	d, err := salxml.Open(tsXMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range wirefixture.Records(t) {
		if r.SALName() != "logevent_softwareVersions" {
			continue
		}
		n++
		if got, want := d.Version(), r.String(t, "xmlVersion"); got != want {
			t.Errorf("line %d: Version %q, salobj published xmlVersion %q", r.Line, got, want)
		}
	}
	if n != 1 {
		t.Errorf("%d softwareVersions records, want 1", n)
	}
}
