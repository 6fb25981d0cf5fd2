// Package benchkit is the shared harness of the SDK's benchmarks: the
// record sizes, a topic's fixture (a valid random record, its encoding
// and codecs), the Kafka environment with its raw franz-go baseline, the
// read and asynchronous-write measurements, and the typed-record
// benchmarks, generic over the record type. Package benchmarks uses it
// in-process, and through a scratch module generated at benchmark time
// for the typed records of the real ts_xml (RunScratch), which are never
// committed. It is not part of the SDK.
package benchkit

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Size is one of the record sizes the benchmarks run on.
type Size struct {
	Name, Comp, Topic string
}

// Sizes are the three record sizes every codec and Kafka benchmark runs
// on: Example scalars (small), MTM1M3 forceActuatorData (fad, 3.3 KB)
// and the largest topic of ts_xml (largest, 116 KB).
var Sizes = []Size{
	{"small", "Example", "scalars"},                                         // ~100 B: every SAL type once
	{"fad", "MTM1M3", "forceActuatorData"},                                  // 3.3 KB
	{"largest", "MTCamera", "logevent_focal_plane_Reb_LimitsConfiguration"}, // ~116 KB
}

// XMLDir returns the ts_xml folder the benchmarks use: $TS_XML_DIR, else
// ../../shared/ts_xml if it exists (relative to the benchmark's folder),
// else "".
func XMLDir() string {
	if dir := os.Getenv("TS_XML_DIR"); dir != "" {
		return dir
	}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "ts_xml")); err == nil {
		return filepath.Join("..", "..", "shared", "ts_xml")
	}
	return ""
}

// Definitions returns the definitions of XMLDir, or the embedded ones
// when there is none.
func Definitions(tb testing.TB) *salxml.Definitions {
	tb.Helper()
	dir := XMLDir()
	if dir == "" {
		return salxml.Embedded()
	}
	defs, err := openXML()
	if err != nil {
		tb.Fatal(err)
	}
	return defs
}

// openXML returns the definitions of XMLDir (set), read once per process.
func openXML() (*salxml.Definitions, error) {
	opened.Do(func() { opened.defs, opened.err = salxml.Open(XMLDir()) })
	return opened.defs, opened.err
}

// opened holds the real ts_xml's definitions, read once per process (the
// benchmarks ask for them once per b.N round).
var opened struct {
	sync.Once
	defs *salxml.Definitions
	err  error
}

// defsFor returns the definitions holding comp: the embedded ones for
// Example, else Definitions; it skips tb when they lack comp.
func defsFor(tb testing.TB, comp string) *salxml.Definitions {
	tb.Helper()
	defs := salxml.Embedded()
	if comp != "Example" {
		defs = Definitions(tb)
	}
	if !defs.Has(comp) {
		tb.Skipf("component %s is only in the real ts_xml: set TS_XML_DIR", comp)
	}
	return defs
}

// Fixture is one topic with a valid record, its encoding and its codecs.
type Fixture struct {
	Topic   *salxml.Topic
	Val     *validate.Validator
	Codec   *codec.Codec
	Generic *codec.Generic
	Rec     map[string]any // complete, canonical, valid
	Body    []byte         // Rec's Avro body (no header)
}

// NewFixture returns the fixture of comp's topic. It skips tb when comp
// is only in the real ts_xml and TS_XML_DIR is not set.
func NewFixture(tb testing.TB, comp, topic string) *Fixture {
	tb.Helper()
	c, err := defsFor(tb, comp).Component(comp)
	if err != nil {
		tb.Fatal(err)
	}
	t := c.Topic(topic)
	if t == nil {
		tb.Fatalf("%s has no topic %s", comp, topic)
	}
	f := &Fixture{Topic: t, Val: validate.Compile(t)}
	if f.Codec, err = codec.New(t); err != nil {
		tb.Fatal(err)
	}
	if f.Generic, err = codec.NewGeneric(t.AvroSchema()); err != nil {
		tb.Fatal(err)
	}
	f.Rec = f.Val.Random(rand.New(rand.NewPCG(1, 2)))
	f.Rec["private_revCode"] = t.RevCode()
	f.Rec["private_identity"] = "user@host.example.org"
	f.Rec["private_seqNum"] = int32(12345)
	f.Rec["private_origin"] = int32(4321)
	if err := f.Val.Validate(f.Rec); err != nil {
		tb.Fatal(err)
	}
	if f.Body, err = f.Codec.Append(nil, f.Rec); err != nil {
		tb.Fatal(err)
	}
	return f
}
