package topics_test

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// logCapture is a slog.Handler that keeps every record, flattened to its
// message and attributes, for tests that check what the SDK logs.
type logCapture struct {
	mu   *sync.Mutex
	recs *[]logLine
}

type logLine struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func (l logLine) String() string {
	keys := make([]string, 0, len(l.attrs))
	for k := range l.attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", l.level, l.msg)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%q", k, l.attrs[k])
	}
	return b.String()
}

func newLogCapture() logCapture { return logCapture{mu: new(sync.Mutex), recs: new([]logLine)} }

func (c logCapture) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (c logCapture) WithAttrs([]slog.Attr) slog.Handler           { return c }
func (c logCapture) WithGroup(string) slog.Handler                { return c }
func (c logCapture) Handle(_ context.Context, r slog.Record) error {
	l := logLine{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		l.attrs[a.Key] = a.Value.String()
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.recs = append(*c.recs, l)
	return nil
}

// lines returns the captured lines that match.
func (c logCapture) lines(match func(logLine) bool) []logLine {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []logLine
	for _, l := range *c.recs {
		if match(l) {
			out = append(out, l)
		}
	}
	return out
}

// newDomainLogging is newDomain with the SDK's log going to h.
func newDomainLogging(t testing.TB, h slog.Handler) *topics.Domain {
	t.Helper()
	cfg := testConfig(t, salxml.Embedded())
	cfg.Logger = slog.New(h)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := topics.NewDomain(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// TestReader_ForeignSchemas: another writer registers schemas of its own
// (under the topic's subject or another one) and frames records with
// their ids. Those that cannot be resolved into the reader's schema (a
// double now a string, a scalar now an array, not a record at all) are
// counted undecodable and logged once, naming the topic, the schema id and
// the field; the reader keeps going. A compatible one (fields reordered,
// a field added with its default) is delivered, and so is one whose array
// is shorter than the definition says (Avro arrays carry their length),
// counted as a violation.
func TestReader_ForeignSchemas(t *testing.T) {
	logs := newLogCapture()
	d := newDomainLogging(t, logs)
	comp := example(t, d)
	ctx := ctxT(t)
	scalars, arrays := comp.Telemetry("scalars"), comp.Telemetry("arrays")
	in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, scalars, arrays)
	topics.SetLogClock(in, time.Hour, nil) // one line per kind in this test, however slow the machine
	rScalars, rArrays := rs[0], rs[1]
	reg := d.Config().RegistryURL
	subject := scalars.Subject(d.Config().Subname)
	schemaID(t, d, scalars)
	setCompatibility(t, reg, subject, "NONE")
	other := d.Config().Subname + "-someone-else" // subjects of this test only, also on a shared registry

	retype := func(tp *salxml.Topic, name string, typ salxml.Type, count int) *salxml.Topic {
		return copyTopic(tp, func(fs []*salxml.Field) []*salxml.Field {
			for _, f := range fs {
				if f.Name == name {
					f.Type, f.Count = typ, count
				}
			}
			return fs
		})
	}
	// Incompatible writers.
	doubleAsString := retype(scalars, "double0", salxml.String, 1)
	intAsArray := retype(scalars, "int0", salxml.Int, 4)
	idString := registerSchema(t, reg, subject, doubleAsString.AvroSchema())
	idArray := registerSchema(t, reg, other+"-value", intAsArray.AvroSchema())
	idNotRecord := registerSchema(t, reg, other+"-entirely-value", `"string"`)
	// Compatible writers: fields reversed plus one added; an array of 3
	// where the definition says 5.
	reordered := copyTopic(scalars, func(fs []*salxml.Field) []*salxml.Field {
		slices.Reverse(fs)
		return append(fs, &salxml.Field{Name: "extra", Type: salxml.Double, Count: 1, Units: "unitless", Description: "Not in the reader."})
	})
	idReordered := registerSchema(t, reg, other+"-reordered-value", reordered.AvroSchema())
	short := retype(arrays, "int0", salxml.Int, 3)
	idShort := registerSchema(t, reg, other+"-arrays-value", short.AvroSchema())

	p := peer{identity: "foreign@elsewhere", origin: 99, index: 1}
	base := topics.TAI()
	seq := int32(0)
	rec := func(tp *salxml.Topic, fields map[string]any) map[string]any {
		seq++
		return p.record(t, tp, fields, seq, base+float64(seq)*1e-3)
	}
	cl := rawProducer(t, d)
	produce(t, cl, kname(d, scalars),
		frame(t, doubleAsString, idString, rec(doubleAsString, map[string]any{"double0": "2.5"})),
		frame(t, intAsArray, idArray, rec(intAsArray, map[string]any{"int0": []int32{1, 2, 3, 4}})),
		append(codec.AppendHeader(nil, idNotRecord), 6, 'a', 'b', 'c'), // the Avro string "abc"
		frame(t, doubleAsString, idString, rec(doubleAsString, map[string]any{"double0": "again"})),
		frame(t, reordered, idReordered, rec(reordered, map[string]any{"int0": int32(42), "double0": 1.25, "string0": "reordered", "extra": 7.0})),
	)
	produce(t, cl, kname(d, arrays),
		frame(t, short, idShort, rec(short, map[string]any{"int0": []int32{7, 8, 9}})))

	got := next(t, ctx, rScalars)
	if got["int0"] != int32(42) || got["double0"] != 1.25 || got["string0"] != "reordered" || got["private_identity"] != p.identity {
		t.Errorf("compatible foreign record: int0=%v double0=%v string0=%v identity=%v", got["int0"], got["double0"], got["string0"], got["private_identity"])
	}
	if _, ok := got["extra"]; ok {
		t.Errorf("a field unknown to the reader was delivered")
	}
	if rcv, _ := got["private_rcvStamp"].(float64); rcv < base {
		t.Errorf("compatible foreign record: private_rcvStamp %v, want the reader's receive time (after %v)", got["private_rcvStamp"], base)
	}
	got = next(t, ctx, rArrays)
	if !reflect.DeepEqual(got["int0"], []int32{7, 8, 9}) {
		t.Errorf("short array: int0 = %#v, want the 3 values written", got["int0"])
	}
	if s := rScalars.Stats(); s.Undecodable != 4 || s.Received != 5 || s.Delivered != 1 {
		t.Errorf("scalars stats %+v, want 4 undecodable of 5 received, 1 delivered", s)
	}
	if s := rArrays.Stats(); s.Undecodable != 0 || s.Violations != 1 || s.Delivered != 1 {
		t.Errorf("arrays stats %+v, want 1 delivered with 1 violation", s)
	}

	// Logged: the first incompatible schema names topic, id and field;
	// the later ones of the same kind are held back by the rate limit.
	schemaLines := logs.lines(func(l logLine) bool { return l.attrs["kind"] == "schema" })
	if len(schemaLines) != 1 {
		t.Errorf("%d lines of kind schema, want 1 (rate limited): %v", len(schemaLines), schemaLines)
	} else if l := schemaLines[0]; l.attrs["topic"] != scalars.String() ||
		!strings.Contains(l.attrs["err"], fmt.Sprintf("schema id %d", idString)) || !strings.Contains(l.attrs["err"], "double0") {
		t.Errorf("the incompatible schema is logged as %v: want the topic %s, schema id %d and field double0", l, scalars, idString)
	}
	if bounds := logs.lines(func(l logLine) bool { return strings.Contains(l.msg, "bound") }); len(bounds) != 1 || !strings.Contains(bounds[0].String(), "int0") {
		t.Errorf("the short array is logged as %v, want one line naming int0", bounds)
	}

	// The reader still takes the SDK's own records.
	_, w := startWriter(t, d, comp, 1, scalars)
	if _, err := w.Write(ctx, map[string]any{"int0": int32(5)}); err != nil {
		t.Fatal(err)
	}
	if got := next(t, ctx, rScalars); got["int0"] != int32(5) {
		t.Errorf("SDK record after the foreign ones: int0=%v", got["int0"])
	}
}
