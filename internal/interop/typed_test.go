package interop

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	ex "github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// typedRecord is test record number variant of topic tp as a typed record
// of the generated Example package.
func typedRecord(t *testing.T, tp *salxml.Topic, variant int) topics.Record {
	t.Helper()
	for _, typ := range ex.RecordTypes {
		if typ.SALName == tp.SALName {
			rec := typ.New()
			if err := rec.FromMap(record(tp, variant)); err != nil {
				t.Fatalf("%s variant %d: %v", tp, variant, err)
			}
			return rec
		}
	}
	t.Fatalf("no generated type for %s", tp)
	return nil
}

// TestTypedGoWritesPythonReads is check (a) with typed records: a Go
// Controller of the generated Example package writes every event and
// telemetry topic from typed records (no map on the way to the bytes);
// Python reads them with confluent-kafka's AvroDeserializer and checks
// every value, the private fields, key and framing.
func TestTypedGoWritesPythonReads(t *testing.T) {
	env := needInterop(t)
	comp := example(t)
	sub := subname(t)
	ctx := ctxFor(t, 3*time.Minute)
	bus := connect(t, comp.defs, sub)
	c, err := ex.NewController(bus.Domain, comp.index, controller.WithWriteOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var records []any
	ntopics := 0
	for _, tp := range c.Component().Topics {
		var w *topics.Writer
		switch tp.Kind {
		case salxml.Event:
			w = c.MustEvent(tp.Name())
		case salxml.Telemetry:
			w = c.MustTelemetry(tp.Name())
		}
		if w == nil || tp.FromAvro {
			continue
		}
		ntopics++
		for v := 0; v < variants; v++ {
			res, err := w.WriteRecord(ctx, typedRecord(t, tp, v))
			if err != nil {
				t.Fatalf("write %s variant %d: %v", tp, v, err)
			}
			records = append(records, map[string]any{"sal_name": tp.SALName, "seq": res.SeqNum, "values": record(tp, v)})
		}
	}
	spec := map[string]any{
		"subname": sub, "component": comp.name, "index": comp.index, "sal_dir": comp.salDir,
		"identity": fmt.Sprintf("%s:%d", comp.name, comp.index),
		"origin":   os.Getpid(),
		"records":  records,
	}
	out := env.runPython(t, "read", spec)
	if got := num(out["records"]); got != int64(len(records)) {
		t.Errorf("Python checked %d records, want %d", got, len(records))
	}
	t.Logf("Python read and checked %d typed records of %d topics", len(records), ntopics)
}

// TestPythonWritesGoTypedRemoteReads is the reverse: Python writes every
// event and telemetry topic of Example; a typed Remote of the generated
// package decodes them straight into typed records, equal to the values
// written.
func TestPythonWritesGoTypedRemoteReads(t *testing.T) {
	env := needInterop(t)
	comp := example(t)
	sub := subname(t)
	ctx := ctxFor(t, 3*time.Minute)
	bus := connect(t, comp.defs, sub)
	r, err := ex.NewRemote(bus.Domain, comp.index, remote.WithReadOnly(), remote.WithEventHistory(false))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	type want struct {
		tp *salxml.Topic
		v  int
	}
	var recs []any
	var wants []want
	for _, tp := range r.Component().Topics {
		if (tp.Kind != salxml.Event && tp.Kind != salxml.Telemetry) || tp.FromAvro {
			continue
		}
		for v := 0; v < variants; v++ {
			recs = append(recs, map[string]any{"sal_name": tp.SALName, "index": comp.index, "values": record(tp, v)})
			wants = append(wants, want{tp, v})
		}
	}
	env.runPython(t, "write", map[string]any{"subname": sub, "component": comp.name, "sal_dir": comp.salDir, "records": recs})
	readers := map[string]*topics.TypedReader[topics.Record]{}
	for _, w := range wants {
		tr := readers[w.tp.SALName]
		if tr == nil {
			var rd *topics.Reader
			if w.tp.Kind == salxml.Event {
				rd = r.MustEvent(w.tp.Name())
			} else {
				rd = r.MustTelemetry(w.tp.Name())
			}
			if tr, err = topics.NewTypedReader[topics.Record](rd); err != nil {
				t.Fatal(err)
			}
			readers[w.tp.SALName] = tr
		}
		nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		got, err := tr.Next(nctx)
		cancel()
		if err != nil {
			t.Fatalf("%s variant %d: %v (stats %+v)", w.tp, w.v, err, tr.Stats())
		}
		if got.RecordType().SALName != w.tp.SALName {
			t.Fatalf("%s: got a record of %s", w.tp, got.RecordType())
		}
		m := map[string]any{}
		got.ToMap(m, false)
		checkRecord(t, fmt.Sprintf("%s variant %d", w.tp, w.v), m, record(w.tp, w.v))
	}
	for name, tr := range readers {
		if s := tr.Stats(); s.Undecodable != 0 || s.Violations != 0 || s.Lost != 0 {
			t.Errorf("%s: %+v", name, s)
		}
	}
	t.Logf("a typed Remote read and checked %d records written by Python", len(wants))
}
