package topics_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	ex "github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// someScalars is a typed Example scalars record with every field set.
func someScalars(i int) *ex.Scalars {
	return &ex.Scalars{
		Boolean0: i%2 == 0, Byte0: uint8(i), Short0: int16(-i), Int0: int32(i * 1000), Long0: int32(-i * 7),
		LongLong0: int64(i) << 40, UnsignedShort0: uint16(i * 3), UnsignedInt0: uint32(i) << 20,
		Float0: float32(i) / 3, Double0: math.NaN(), String0: "rec " + strings.Repeat("x", i%10),
	}
}

// scalarsMap is rec's user fields as a map record.
func scalarsMap(rec *ex.Scalars) map[string]any {
	m := map[string]any{}
	rec.ToMap(m, false)
	return m
}

// rawValues reads n record values of a Kafka topic from its start.
func rawValues(t *testing.T, d *topics.Domain, topic string, n int) [][]byte {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.Config().Brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := ctxT(t)
	var out [][]byte
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r.Value) })
	}
	return out
}

// TestTypedWriter_SameBytesAsMapWrite: a typed record and a map record of
// the same values, each the first record of its writer, go on the wire as
// the same bytes, but for the time stamps.
func TestTypedWriter_SameBytesAsMapWrite(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, wTyped := startWriter(t, d, comp, 1, tp)
	tw, err := topics.NewTypedWriter[*ex.Scalars](wTyped)
	if err != nil {
		t.Fatal(err)
	}
	rec := someScalars(5)
	if _, err := tw.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	// Another writer of the same index (another Instance: its own
	// seqNums) writes the same values as a map.
	_, wMap := startWriter(t, d, comp, 1, tp)
	if _, err := wMap.Write(ctx, scalarsMap(someScalars(5))); err != nil {
		t.Fatal(err)
	}
	vals := rawValues(t, d, kname(d, tp), 2)
	// Header (5 bytes), salIndex 1 (1 byte), then the four stamps of 8
	// bytes each: the only bytes that may differ.
	stamps := func(v []byte) []byte {
		c := bytes.Clone(v)
		clear(c[6 : 6+32])
		return c
	}
	if !bytes.Equal(stamps(vals[0]), stamps(vals[1])) {
		t.Errorf("typed write %x\nmap write   %x", vals[0], vals[1])
	}
	// The typed record was stamped as written.
	if rec.SeqNum != 1 || rec.SalIndex != 1 || rec.RevCode != tp.RevCode() || rec.SndStamp == 0 || rec.Identity != d.DefaultIdentity() {
		t.Errorf("stamps after Write: %+v", rec.Private)
	}
}

// TestTypedWriter_Checks: a typed write is checked as a map write is: a
// string over its bound is refused with the same error, a salIndex of
// another writer is refused, and records of another topic's type are
// refused at NewTypedWriter.
func TestTypedWriter_Checks(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, w := startWriter(t, d, comp, 1, tp)
	tw, err := topics.NewTypedWriter[*ex.Scalars](w)
	if err != nil {
		t.Fatal(err)
	}
	long := someScalars(1)
	long.String0 = strings.Repeat("y", 21)
	_, errTyped := tw.Write(ctx, long)
	_, errMap := w.Write(ctx, scalarsMap(long))
	if !errors.Is(errTyped, validate.ErrStringLength) || errMap == nil || errTyped.Error() != errMap.Error() {
		t.Errorf("over-long string: typed %v\nmap %v", errTyped, errMap)
	}
	other := someScalars(1)
	other.SalIndex = 2
	if _, err := tw.Write(ctx, other); !errors.Is(err, topics.ErrWrongIndex) {
		t.Errorf("salIndex 2 on writer 1: %v, want ErrWrongIndex", err)
	}
	if _, err := tw.Write(ctx, nil); err == nil {
		t.Error("nil record written")
	}
	if s := w.Stats(); s.Written != 0 {
		t.Errorf("writer stats %+v: nothing should have been written", s)
	}
	_, wArrays := startWriter(t, d, comp, 1, comp.Telemetry("arrays"))
	if _, err := topics.NewTypedWriter[*ex.Scalars](wArrays); !errors.Is(err, topics.ErrRecordType) {
		t.Errorf("Scalars records on the arrays writer: %v, want ErrRecordType", err)
	}
}

// typedReader starts a reader of tp decoding typed records.
func typedReader[R topics.Record](t *testing.T, d *topics.Domain, comp *salxml.Component, tp *salxml.Topic, o topics.ReaderOptions) *topics.TypedReader[R] {
	t.Helper()
	var zero R
	o.Record = zero.RecordType()
	_, rs := startInstance(t, d, comp, 0, o, tp)
	tr, err := topics.NewTypedReader[R](rs[0])
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTypedReader_DecodesTyped: a typed reader delivers what a map writer
// wrote as typed records, stamped as received; its map methods give the
// same values as maps; Get gives the record Next gave last.
func TestTypedReader_DecodesTyped(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	tr := typedReader[*ex.Scalars](t, d, comp, tp, topics.ReaderOptions{})
	_, w := startWriter(t, d, comp, 3, tp)
	for i := range 3 {
		if _, err := w.Write(ctx, scalarsMap(someScalars(i))); err != nil {
			t.Fatal(err)
		}
	}
	var last *ex.Scalars
	for i := range 3 {
		got, err := tr.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := someScalars(i)
		want.Private = got.Private
		if !sameScalars(got, want) {
			t.Errorf("record %d: got %+v\nwant %+v", i, got, want)
		}
		if got.SalIndex != 3 || got.SeqNum != int32(i+1) || got.RcvStamp < got.SndStamp || got.RevCode != tp.RevCode() {
			t.Errorf("record %d private fields %+v", i, got.Private)
		}
		last = got
	}
	if g := tr.Get(); g != last {
		t.Errorf("Get = %p, want the last record %p", g, last)
	}
	m := tr.Reader().Get()
	if m["int0"] != int32(2000) || m["salIndex"] != int32(3) || m["private_seqNum"] != int32(3) {
		t.Errorf("map Get of a typed reader: %v", m)
	}
	if m2 := tr.Reader().Get(); !same(m, m2) {
		t.Error("two map Gets of one newest record gave two maps")
	}
	if s := tr.Stats(); s.Delivered != 3 || s.Violations != 0 {
		t.Errorf("stats %+v", s)
	}
}

// sameScalars compares two records, NaN equal to NaN.
func sameScalars(a, b *ex.Scalars) bool {
	x, y := *a, *b
	if math.IsNaN(x.Double0) && math.IsNaN(y.Double0) {
		x.Double0, y.Double0 = 0, 0
	}
	return x == y
}

// TestTypedReader_Recycle: records handed back are decoded into again.
func TestTypedReader_Recycle(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	tr := typedReader[*ex.Scalars](t, d, comp, tp, topics.ReaderOptions{})
	_, w := startWriter(t, d, comp, 1, tp)
	tw, err := topics.NewTypedWriter[*ex.Scalars](w)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*ex.Scalars]bool{}
	reused := 0
	for i := range 20 {
		if _, err := tw.Write(ctx, someScalars(i)); err != nil {
			t.Fatal(err)
		}
		got, err := tr.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Int0 != int32(i*1000) || got.String0 != someScalars(i).String0 {
			t.Fatalf("record %d: %+v", i, got)
		}
		if seen[got] {
			reused++
		}
		seen[got] = true
		tr.Recycle(got)
	}
	if reused == 0 {
		t.Error("no record handed back was decoded into again")
	}
	tr.Recycle(nil) // ignored
}

// TestTypedReader_History: a late joiner's typed event reader gets the
// newest record of each SAL index.
func TestTypedReader_History(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	for idx := 1; idx <= 2; idx++ {
		_, w := startWriter(t, d, comp, idx, tp)
		tw, err := topics.NewTypedWriter[*ex.EvtScalars](w)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, err := tw.Write(ctx, &ex.EvtScalars{Int0: int32(idx*10 + i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr := typedReader[*ex.EvtScalars](t, d, comp, tp, topics.ReaderOptions{MaxHistory: 1})
	got := map[int32]int32{}
	for range 2 {
		rec, err := tr.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[rec.SalIndex] = rec.Int0
	}
	if got[1] != 12 || got[2] != 22 {
		t.Errorf("history: %v, want index 1: 12, index 2: 22", got)
	}
}

// TestTypedReader_OnMapReader: typed methods on a reader that decodes maps
// convert each record.
func TestTypedReader_OnMapReader(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 0, topics.ReaderOptions{}, tp)
	tr, err := topics.NewTypedReader[*ex.Scalars](rs[0])
	if err != nil {
		t.Fatal(err)
	}
	_, w := startWriter(t, d, comp, 1, tp)
	if _, err := w.Write(ctx, scalarsMap(someScalars(4))); err != nil {
		t.Fatal(err)
	}
	got, err := tr.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Int0 != 4000 || got.SeqNum != 1 {
		t.Errorf("converted record %+v", got)
	}
	// No newer record was written: AwaitNewer waits, here until its
	// (already cancelled) ctx ends.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if newer, err := tr.AwaitNewer(cctx, tr.Get()); !errors.Is(err, context.Canceled) {
		t.Errorf("AwaitNewer = %+v, %v without a newer record", newer, err)
	}
	if _, err := topics.NewTypedReader[*ex.Arrays](rs[0]); !errors.Is(err, topics.ErrRecordType) {
		t.Errorf("Arrays reader on scalars: %v", err)
	}
}

// otherSchema is a typed reader of Example's scalars, and a peer writing
// that topic with a newer version of its schema (one more field, extra),
// registered under the topic's subject.
type otherSchema struct {
	d     *topics.Domain
	tp    *salxml.Topic
	tr    *topics.TypedReader[*ex.Scalars]
	other *salxml.Topic
	id    int32
	prod  *kgo.Client
}

func newOtherSchema(t *testing.T) *otherSchema {
	d := newDomain(t, nil)
	comp := example(t, d)
	tp := comp.Telemetry("scalars")
	o := &otherSchema{d: d, tp: tp, tr: typedReader[*ex.Scalars](t, d, comp, tp, topics.ReaderOptions{})}
	o.other = copyTopic(tp, func(fs []*salxml.Field) []*salxml.Field {
		return append(fs, &salxml.Field{Name: "extra", Type: salxml.Double, Count: 1})
	})
	o.id = registerSchema(t, d.Config().RegistryURL, tp.Subject(d.Config().Subname), o.other.AvroSchema())
	o.prod = rawProducer(t, d)
	return o
}

// record is the framed record of the peer (salIndex 1) with int0 and seqNum.
func (o *otherSchema) record(t *testing.T, int0, seq int32) []byte {
	p := peer{identity: "peer", origin: 7, index: 1}
	return frame(t, o.other, o.id, p.record(t, o.other, map[string]any{"int0": int0, "extra": 1.5}, seq, topics.TAI()))
}

func (o *otherSchema) produce(t *testing.T, vals ...[]byte) {
	produce(t, o.prod, kname(o.d, o.tp), vals...)
}

// TestTypedReader_OtherSchema: a record written with another version of
// the topic's schema is resolved and converted by a typed reader.
func TestTypedReader_OtherSchema(t *testing.T) {
	o := newOtherSchema(t)
	o.produce(t, o.record(t, 77, 1))
	got, err := o.tr.Next(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if got.Int0 != 77 || got.Identity != "peer" || got.SalIndex != 1 || got.RcvStamp == 0 {
		t.Errorf("record of another schema: %+v", got)
	}
}

// TestTypedReader_OtherSchemaUndecodable: a record written with another
// version of the topic's schema that cannot be decoded is counted bad and
// dropped, and the typed reader goes on with the next one (the map it was
// decoded into is not taken back as a typed record to decode into).
func TestTypedReader_OtherSchemaUndecodable(t *testing.T) {
	o := newOtherSchema(t)
	cut := o.record(t, 1, 1)
	o.produce(t, cut[:len(cut)-3], o.record(t, 2, 2))
	got, err := o.tr.Next(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if got.Int0 != 2 {
		t.Errorf("record after the undecodable one: %+v", got)
	}
	if s := o.tr.Stats(); s.Undecodable != 1 {
		t.Errorf("stats %+v, want one bad record", s)
	}
}

// TestWriter_WriteRecord: a writer takes typed records of its own topic
// without a TypedWriter, and refuses those of another.
func TestWriter_WriteRecord(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	tr := typedReader[*ex.Scalars](t, d, comp, tp, topics.ReaderOptions{})
	_, w := startWriter(t, d, comp, 1, tp)
	var rec topics.Record = someScalars(3)
	if _, err := w.WriteRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	if err := w.WriteRecordAsync(ctx, someScalars(4), func(_ topics.WriteResult, err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []int32{3000, 4000} {
		got, err := tr.Next(ctx)
		if err != nil || got.Int0 != want {
			t.Fatalf("Next = %+v, %v; want int0 %d", got, err, want)
		}
	}
	if _, err := w.WriteRecord(ctx, &ex.Arrays{}); !errors.Is(err, topics.ErrRecordType) {
		t.Errorf("Arrays record on the scalars writer: %v", err)
	}
}

// TestTyped_AnyRecord: TypedReader and TypedWriter of Record itself read
// and write records whose type is known at run time.
func TestTyped_AnyRecord(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 0, topics.ReaderOptions{Record: (*ex.Scalars)(nil).RecordType()}, tp)
	tr, err := topics.NewTypedReader[topics.Record](rs[0])
	if err != nil {
		t.Fatal(err)
	}
	_, w := startWriter(t, d, comp, 1, tp)
	tw, err := topics.NewTypedWriter[topics.Record](w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(ctx, someScalars(6)); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(ctx, &ex.Arrays{}); !errors.Is(err, topics.ErrRecordType) {
		t.Errorf("Arrays record: %v", err)
	}
	got, err := tr.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := got.(*ex.Scalars); !ok || s.Int0 != 6000 {
		t.Errorf("Next = %#v", got)
	}
	_, maps := startInstance(t, d, comp, 0, topics.ReaderOptions{}, tp)
	if _, err := topics.NewTypedReader[topics.Record](maps[0]); !errors.Is(err, topics.ErrRecordType) {
		t.Errorf("TypedReader[Record] of a map reader: %v", err)
	}
}
