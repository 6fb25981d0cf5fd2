package topics

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// maxSeqNum is the largest private_seqNum (2^31-1); writers wrap to 1.
const maxSeqNum = math.MaxInt32

// WriteResult says where a record landed.
type WriteResult struct {
	// SeqNum is the private_seqNum written.
	SeqNum int32
	// Partition and Offset of the record in Kafka.
	Partition int32
	Offset    int64
	// Latency from the call to the broker's acknowledgement.
	Latency time.Duration
}

// WriterStats counts a writer's records.
type WriterStats struct {
	Written uint64 // acknowledged by the broker
	Failed  uint64 // rejected by validation or by Kafka
}

// Writer writes one topic of one component instance. It is safe for
// concurrent use; records are sent in the order their sequence numbers
// were assigned.
type Writer struct {
	in     *Instance
	topic  *salxml.Topic
	kname  string
	key    []byte
	val    *validate.Validator
	codec  *codec.Codec
	id     int32
	boxRev any
	hasIdx bool
	boxIdx any

	mu      sync.Mutex
	seq     int32
	data    map[string]any
	hasData bool
	boxes   codec.Boxes // the stamps' boxes; w.mu held
	vals    []any       // a record's values in field order while it is encoded; w.mu held
	known   []bool      // the fields of vals that the stamps set
	at      stampAt
	states  sync.Pool // of *sendState: records in flight, with their encode buffers

	written atomic.Uint64
	failed  atomic.Uint64
	lat     Observer // write-ack latency; nil when metrics are off
}

func newWriter(in *Instance, t *salxml.Topic) (*Writer, error) {
	c, err := codec.New(t)
	if err != nil {
		return nil, fmt.Errorf("topics: %s: %w", t, err)
	}
	w := &Writer{
		in:     in,
		topic:  t,
		kname:  t.KafkaName(in.d.cfg.Subname),
		val:    validate.For(t, in.d.cfg.writeRules()...),
		codec:  c,
		boxRev: t.RevCode(),
		hasIdx: t.Indexed,
		boxIdx: int32(in.index),
	}
	w.vals = make([]any, w.val.NumFields())
	w.known = make([]bool, w.val.NumFields())
	idx := func(name string) int {
		i := w.val.FieldIndex(name)
		if i >= 0 {
			w.known[i] = true
		}
		return i
	}
	w.at = stampAt{
		rcv: idx("private_rcvStamp"), rev: idx("private_revCode"), identity: idx("private_identity"),
		origin: idx("private_origin"), index: -1, snd: idx("private_sndStamp"), kafka: idx("private_kafkaStamp"),
		efd: idx("private_efdStamp"), seq: idx("private_seqNum"),
	}
	if t.Indexed {
		w.at.index = idx("salIndex")
	}
	w.states.New = w.newState
	// The reference's key: its JSON form, or on telemetry a zero-length
	// key (not a null one, which a nil slice would send).
	w.key = append(make([]byte, 0, len(t.Key(in.index))), t.Key(in.index)...)
	if m := in.d.cfg.Metrics; m != nil {
		w.lat = m.WriteLatency(in.info(t.SALName, t.Kind.String()))
	}
	return w, nil
}

// Topic returns the topic definition.
func (w *Writer) Topic() *salxml.Topic { return w.topic }

// Stats returns the writer's counters.
func (w *Writer) Stats() WriterStats {
	return WriterStats{Written: w.written.Load(), Failed: w.failed.Load()}
}

// New returns a fresh record with every field at its default.
func (w *Writer) New() map[string]any { return w.val.New() }

// Write stamps rec with the private fields (and salIndex), validates it,
// sends it and returns once the broker acknowledged it (at the Domain's
// acks setting) or ctx is done. Write fills rec's missing fields with their
// defaults and converts its values to the canonical types in place.
//
// A ctx that has already ended refuses the write (the error matches the
// ctx's): nothing is sent and no sequence number taken. One that ends
// once the record is handed over only ends the wait: the record still
// goes out (or fails on its own), so that it cannot fail the records of
// other writes buffered behind it. The same holds for every write.
func (w *Writer) Write(ctx context.Context, rec map[string]any) (WriteResult, error) {
	return w.write(ctx, rec, 0)
}

// writeSeq is w.Write with an explicit private_seqNum (commands and acks).
func writeSeq(ctx context.Context, w *Writer, rec map[string]any, seq int32) (WriteResult, error) {
	if seq <= 0 {
		return WriteResult{}, fmt.Errorf("topics: %s: private_seqNum %d must be > 0", w.topic, seq)
	}
	return w.write(ctx, rec, seq)
}

func (w *Writer) write(ctx context.Context, rec map[string]any, seq int32) (WriteResult, error) {
	return w.writeWith(ctx, func(done func(WriteResult, error)) error { return w.sendLocked(ctx, rec, seq, done) })
}

// writeRecord is write of a typed record.
func (w *Writer) writeRecord(ctx context.Context, rec Record, seq int32) (WriteResult, error) {
	return w.writeWith(ctx, func(done func(WriteResult, error)) error { return w.sendRecordLocked(ctx, rec, seq, done) })
}

// writeWith queues a record with send under w.mu and waits for the
// broker's acknowledgement or the end of ctx.
func (w *Writer) writeWith(ctx context.Context, send func(done func(WriteResult, error)) error) (WriteResult, error) {
	w.mu.Lock()
	wait, err := w.waitFor(ctx, send)
	w.mu.Unlock()
	if err != nil {
		return WriteResult{}, err
	}
	return wait()
}

// sendSync queues rec as sendLocked does and returns a function that
// waits for the broker's acknowledgement or the end of ctx. w.mu is held.
func (w *Writer) sendSync(ctx context.Context, rec map[string]any, seq int32) (func() (WriteResult, error), error) {
	return w.waitFor(ctx, func(done func(WriteResult, error)) error {
		return w.sendLocked(ctx, rec, seq, done)
	})
}

// waitFor queues a record with send and returns a function that waits
// for the broker's acknowledgement or the end of ctx.
func (w *Writer) waitFor(ctx context.Context, send func(done func(WriteResult, error)) error) (func() (WriteResult, error), error) {
	type result struct {
		r   WriteResult
		err error
	}
	ch := make(chan result, 1)
	if err := send(func(r WriteResult, err error) { ch <- result{r, err} }); err != nil {
		return nil, err
	}
	return func() (WriteResult, error) {
		select {
		case res := <-ch:
			return res.r, res.err
		case <-ctx.Done():
			return WriteResult{}, fmt.Errorf("topics: write %s: %w", w.topic, ctx.Err())
		}
	}, nil
}

// WriteAsync stamps, validates and queues rec, and returns at once; done
// (which may be nil) runs when the broker acknowledged it or it failed. A
// validation error is returned directly and done is not called. Callbacks
// run one at a time on a goroutine of the Kafka client and must not block.
func (w *Writer) WriteAsync(ctx context.Context, rec map[string]any, done func(WriteResult, error)) error {
	return w.send(ctx, rec, 0, done)
}

// writeSeqAsync is w.WriteAsync with an explicit private_seqNum (commands
// and acks): it returns once rec is queued, as the reference's writes do.
func writeSeqAsync(ctx context.Context, w *Writer, rec map[string]any, seq int32, done func(WriteResult, error)) error {
	if seq <= 0 {
		return fmt.Errorf("topics: %s: private_seqNum %d must be > 0", w.topic, seq)
	}
	return w.send(ctx, rec, seq, done)
}

func (w *Writer) send(ctx context.Context, rec map[string]any, seq int32, done func(WriteResult, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sendLocked(ctx, rec, seq, done)
}

// sendLocked stamps, validates, encodes and queues rec; w.mu is held, so
// that records go out in the order of their sequence numbers and stamps.
func (w *Writer) sendLocked(ctx context.Context, rec map[string]any, seq int32, done func(WriteResult, error)) error {
	if rec == nil {
		return fmt.Errorf("topics: write %s: nil record (use an empty map, or Writer.New, for all defaults)", w.topic)
	}
	if err := w.ready(ctx); err != nil {
		return err
	}
	// The stamps that are the same in every record are stored only when
	// rec does not hold them already (a map written again, as most
	// writers do with theirs): looking a key up costs a fraction of
	// storing it.
	//
	// A value the caller gave for a stamped field is checked first: one
	// of the wrong type, or a salIndex other than the writer's, is an
	// error naming the field (rec may then hold some stamps already).
	if err := w.stampSame(rec, w.at.rcv, "private_rcvStamp", boxZero); err != nil {
		return err
	}
	if err := w.stampSame(rec, w.at.rev, "private_revCode", w.boxRev); err != nil {
		return err
	}
	if err := w.stampSame(rec, w.at.identity, "private_identity", w.in.boxIdentity); err != nil {
		return err
	}
	if err := w.stampSame(rec, w.at.origin, "private_origin", w.in.boxOrigin); err != nil {
		return err
	}
	if w.hasIdx {
		if err := w.stampSame(rec, w.at.index, "salIndex", w.boxIdx); err != nil {
			return err
		}
	}
	if err := w.given(rec); err != nil {
		return err
	}
	// Stamp under the lock that orders sequence numbers and sends: stamped
	// outside it, concurrent writes could go out with a newer
	// private_sndStamp before an older one, and readers drop the older one
	// as out of order.
	start := now()
	tai := UTCToTAI(start)
	boxTAI := w.boxes.F64(tai)
	stamp(rec, w.vals, w.at.snd, "private_sndStamp", boxTAI)
	stamp(rec, w.vals, w.at.kafka, "private_kafkaStamp", boxTAI)
	stamp(rec, w.vals, w.at.efd, "private_efdStamp", w.boxes.F64(TAIToUTC(tai)))
	seq, auto := w.seqFor(seq)
	stamp(rec, w.vals, w.at.seq, "private_seqNum", w.boxes.I32(seq))
	// One look-up per field for validation and encoding: Values gathers
	// the values of a record that is complete and canonical, which is the
	// usual case, taking the stamps from w.vals; any other record goes
	// through Validate (conversions, defaults filled in place, errors)
	// first.
	if !w.val.Values(rec, w.vals, w.known) {
		if err := w.val.Validate(rec); err != nil {
			clear(w.vals)
			w.failed.Add(1)
			return err
		}
		if !w.val.Values(rec, w.vals, w.known) {
			clear(w.vals)
			w.failed.Add(1)
			return fmt.Errorf("topics: encode %s: record not complete after validation", w.topic)
		}
	}
	st := w.states.Get().(*sendState)
	buf, err := w.codec.AppendValues(codec.AppendHeader(st.buf[:0], w.id), w.vals)
	clear(w.vals) // hold no reference to the application's values
	if err != nil {
		w.putState(st, buf)
		w.failed.Add(1)
		return fmt.Errorf("topics: encode %s: %w", w.topic, err)
	}
	w.produce(ctx, st, buf, start, seq, auto, done)
	return nil
}

// ready says why a record cannot be sent now: the instance is not
// writable, or ctx has ended (a record whose ctx has ended goes nowhere:
// handed to franz-go, it could fail the records buffered after it in its
// partition).
func (w *Writer) ready(ctx context.Context) error {
	if err := w.in.writable(); err != nil {
		return fmt.Errorf("topics: write %s: %w", w.topic, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("topics: write %s: %w", w.topic, err)
	}
	return nil
}

// seqFor returns the private_seqNum of the next record: seq when the
// caller gave one, else the writer's next (auto), wrapping from 2^31-1 to
// 1. w.mu is held; produce takes an auto seqNum.
func (w *Writer) seqFor(seq int32) (int32, bool) {
	if seq != 0 {
		return seq, false
	}
	if w.seq >= maxSeqNum {
		w.seq = 0
	}
	return w.seq + 1, true
}

// produce hands an encoded record (buf, in st's pooled buffer) to Kafka,
// taking its seqNum if the writer chose it. w.mu is held.
func (w *Writer) produce(ctx context.Context, st *sendState, buf []byte, start time.Time, seq int32, auto bool, done func(WriteResult, error)) {
	if auto {
		w.seq = seq
	}
	st.w, st.buf, st.start, st.seq, st.done = w, buf, start, seq, done
	w.in.d.prod.Produce(ctx, &st.msg, w.kname, w.key, buf, start, st)
}

// sendRecord is send of a typed record.
func (w *Writer) sendRecord(ctx context.Context, rec Record, seq int32, done func(WriteResult, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sendRecordLocked(ctx, rec, seq, done)
}

// sendRecordLocked is sendLocked of a typed record: the same checks and
// stamps, then the record's own encoder, with no map in between.
func (w *Writer) sendRecordLocked(ctx context.Context, rec Record, seq int32, done func(WriteResult, error)) error {
	if rec == nil || reflectNil(rec) {
		return fmt.Errorf("topics: write %s: nil record", w.topic)
	}
	if err := w.ready(ctx); err != nil {
		return err
	}
	p := rec.header()
	if w.hasIdx {
		if p.SalIndex != 0 && int(p.SalIndex) != w.in.index {
			return fmt.Errorf("topics: write %s: field salIndex: %w: %d given, the writer's index is %d", w.topic, ErrWrongIndex, p.SalIndex, w.in.index)
		}
		p.SalIndex = int32(w.in.index)
	}
	if err := rec.Validate(w.in.d.cfg.UnboundedStrings); err != nil {
		w.failed.Add(1)
		return err
	}
	p.RcvStamp, p.RevCode, p.Identity, p.Origin = 0, w.topic.RevCode(), w.in.identity, int32(w.in.d.origin)
	start := now()
	tai := UTCToTAI(start)
	p.SndStamp, p.KafkaStamp, p.EfdStamp = tai, tai, TAIToUTC(tai)
	seq, auto := w.seqFor(seq)
	p.SeqNum = seq
	st := w.states.Get().(*sendState)
	w.produce(ctx, st, rec.AppendAvro(codec.AppendHeader(st.buf[:0], w.id)), start, seq, auto, done)
	return nil
}

// reflectNil reports whether rec holds a nil pointer.
func reflectNil(rec Record) bool {
	v := reflect.ValueOf(rec)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// boxZero is private_rcvStamp as a writer writes it.
var boxZero any = 0.0

// stampSame stores v under k unless rec holds that very value already,
// and as w.vals[i] if i >= 0. A value rec holds that differs is checked
// (see stampedValue) before it is replaced.
func (w *Writer) stampSame(rec map[string]any, i int, k string, v any) error {
	if old, ok := rec[k]; !ok || !codec.Same(old, v) {
		if ok {
			if err := w.stampedValue(k, old, v); err != nil {
				return err
			}
		}
		rec[k] = v
	}
	if i >= 0 {
		w.vals[i] = v
	}
	return nil
}

// given checks the values rec holds for the stamps written anew every
// time (time stamps, sequence number), which stamp then replaces: a value
// of the canonical type (as a map written again holds) passes at the
// cost of a look-up and a type switch.
func (w *Writer) given(rec map[string]any) error {
	for _, f := range [...]struct {
		k    string
		want any
	}{{"private_sndStamp", 0.0}, {"private_kafkaStamp", 0.0}, {"private_efdStamp", 0.0}, {"private_seqNum", int32(0)}} {
		old, ok := rec[f.k]
		if !ok {
			continue
		}
		switch old.(type) {
		case float64:
			if _, isF := f.want.(float64); isF {
				continue
			}
		case int32:
			if _, isI := f.want.(int32); isI {
				continue
			}
		}
		if err := w.stampedValue(f.k, old, f.want); err != nil {
			return err
		}
	}
	return nil
}

// stampedValue checks a value given for a field the writer stamps with
// stamp, by the validator's own rules (validate.Validator.Field): one of a
// type that cannot hold the field is an error, and a salIndex must be the
// writer's index. The writer's stamp replaces it anyway; a value that
// could not be the field's is a mistake worth reporting, not overwriting
// in silence. A salIndex of 0 is the field's default (a record from
// Writer.New), stamped without a word.
func (w *Writer) stampedValue(k string, got, stamp any) error {
	v, err := w.val.Field(k, got)
	switch {
	case errors.Is(err, validate.ErrType) || errors.Is(err, validate.ErrNull):
		return fmt.Errorf("topics: write %s: field %s: %w: %T %v given for a %T field that the writer stamps", w.topic, k, validate.ErrType, got, got, stamp)
	case k == "salIndex" && (err != nil || v != int32(0) && v != stamp): // err: out of range
		return fmt.Errorf("topics: write %s: field salIndex: %w: %v given, the writer's index is %d", w.topic, ErrWrongIndex, got, stamp)
	}
	return nil
}

// stamp stores v under k, and as vals[i] if i >= 0.
func stamp(rec map[string]any, vals []any, i int, k string, v any) {
	rec[k] = v
	if i >= 0 {
		vals[i] = v
	}
}

// stampAt holds the field indexes of the stamps (-1 for a field the topic
// lacks, which validation then reports as unknown).
type stampAt struct {
	rcv, rev, identity, origin, index, snd, kafka, efd, seq int
}

// sendState is a record in flight: its Kafka message, its encode buffer
// and what its acknowledgement needs. They are pooled per writer
// (Writer.states), with their buffers: a fresh buffer per record (3.4 KB
// for MTM1M3 forceActuatorData) cost page faults on fresh memory and
// garbage collections, about a third of the asynchronous write
// throughput on the embedded broker.
type sendState struct {
	msg   kafka.Message
	w     *Writer
	buf   []byte
	start time.Time
	seq   int32
	done  func(WriteResult, error)
}

// Acked runs on a franz-go goroutine once the broker acknowledged the
// record or it failed.
func (st *sendState) Acked(p int32, off int64, err error) {
	w, start, seq, done := st.w, st.start, st.seq, st.done
	// The Kafka client is done with the buffer once it reports the outcome.
	w.putState(st, st.buf)
	if err != nil {
		w.failed.Add(1)
		err = fmt.Errorf("topics: write %s: %w", w.topic, err)
	} else {
		w.written.Add(1)
	}
	if done == nil && w.lat == nil {
		return
	}
	lat := now().Sub(start)
	if w.lat != nil && err == nil {
		w.lat.Observe(lat.Seconds())
	}
	if done != nil {
		done(WriteResult{SeqNum: seq, Partition: p, Offset: off, Latency: lat}, err)
	}
}

// newState makes a sendState with a buffer for any record of the topic
// whose strings are short (see codec.SizeHint).
func (w *Writer) newState() any {
	return &sendState{buf: make([]byte, 0, codec.HeaderLen+w.codec.SizeHint())}
}

// putState returns st to the pool with buf (which st's buffer may have
// grown into), unless one huge record grew it.
func (w *Writer) putState(st *sendState, buf []byte) {
	if cap(buf) > 4*(codec.HeaderLen+w.codec.SizeHint())+64<<10 {
		buf = nil
	}
	*st = sendState{buf: buf[:0]}
	w.states.Put(st)
}

// Set updates the writer's current data with fields (nil values leave a
// field unchanged) and reports whether anything changed; the first Set
// always reports a change, as the reference's set does. The data starts
// at the defaults. NaN equals NaN. The writer keeps copies of the arrays
// in fields: the caller may edit its arrays and Set them again.
func (w *Writer) Set(fields map[string]any) (changed bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.setLocked(fields)
}

func (w *Writer) setLocked(fields map[string]any) (bool, error) {
	if w.data == nil {
		w.data = w.val.New()
	}
	next := maps.Clone(w.data)
	for k, v := range fields {
		if v != nil {
			next[k] = v
		}
	}
	if err := w.val.Validate(next); err != nil {
		return false, err
	}
	changed := !w.hasData
	for k := range fields {
		if fields[k] != nil {
			if !sameValue(w.data[k], next[k]) {
				changed = true
			}
			// The caller's array (or one Validate converted it to)
			// must not be the writer's: edited and set again, it
			// would equal the data and not count as a change.
			next[k] = cloneValue(next[k])
		}
	}
	w.data = next
	w.hasData = true
	return changed, nil
}

// Data returns a copy of the writer's current data, arrays included:
// editing it leaves the writer's data alone.
func (w *Writer) Data() map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.data == nil {
		return w.val.New()
	}
	return cloneData(w.data)
}

// cloneData is a copy of rec with copies of its arrays; strings and
// scalars are immutable.
func cloneData(rec map[string]any) map[string]any {
	c := make(map[string]any, len(rec))
	for k, v := range rec {
		c[k] = cloneValue(v)
	}
	return c
}

// cloneValue is a copy of v if it is an array (a slice of a canonical
// element type, see validate), else v.
func cloneValue(v any) any {
	switch s := v.(type) {
	case []bool:
		return slices.Clone(s)
	case []uint8:
		return slices.Clone(s)
	case []int16:
		return slices.Clone(s)
	case []int32:
		return slices.Clone(s)
	case []int64:
		return slices.Clone(s)
	case []uint16:
		return slices.Clone(s)
	case []uint32:
		return slices.Clone(s)
	case []float32:
		return slices.Clone(s)
	case []float64:
		return slices.Clone(s)
	}
	return v
}

// SetWriteResult is what SetWrite did.
type SetWriteResult struct {
	Changed bool
	Written bool
	// Data is a copy of the writer's data (see Writer.Data), stamped as
	// written if Written.
	Data map[string]any
	WriteResult
}

// SetWrite sets fields as Set does, then writes the data if Set reported a
// change (any field changed, or this is the first Set), if force is true,
// or always for topics other than events (the reference's set_write).
func (w *Writer) SetWrite(ctx context.Context, fields map[string]any, force bool) (SetWriteResult, error) {
	if err := ctx.Err(); err != nil { // refused before the data changes
		return SetWriteResult{}, fmt.Errorf("topics: write %s: %w", w.topic, err)
	}
	w.mu.Lock()
	changed, err := w.setLocked(fields)
	if err != nil {
		w.mu.Unlock()
		return SetWriteResult{}, err
	}
	data := cloneData(w.data)
	res := SetWriteResult{Changed: changed, Data: data}
	if !(changed || force || w.topic.Kind != salxml.Event) {
		w.mu.Unlock()
		return res, nil
	}
	// Set and send under one hold of the lock: concurrent SetWrites reach
	// the bus in the order they changed the data, so the newest record on
	// the bus is the writer's data.
	wait, err := w.sendSync(ctx, data, 0) // stamps data: Data shows what was written
	w.mu.Unlock()
	if err != nil {
		return res, err
	}
	wr, err := wait()
	if err != nil {
		return res, err
	}
	res.Written, res.WriteResult = true, wr
	return res, nil
}

// SetWriteAsync is SetWrite that queues the record and returns at once:
// done (which may be nil) runs when the broker acknowledged it or it
// failed, and is not called when nothing was written (no change, not
// forced) or for an error returned directly. Callbacks run one at a time
// on a goroutine of the Kafka client and must not block.
func (w *Writer) SetWriteAsync(ctx context.Context, fields map[string]any, force bool, done func(SetWriteResult, error)) (written bool, err error) {
	if err := ctx.Err(); err != nil { // refused before the data changes
		return false, fmt.Errorf("topics: write %s: %w", w.topic, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	changed, err := w.setLocked(fields)
	if err != nil {
		return false, err
	}
	if !(changed || force || w.topic.Kind != salxml.Event) {
		return false, nil
	}
	data := cloneData(w.data)
	err = w.sendLocked(ctx, data, 0, func(r WriteResult, err error) {
		if done != nil {
			done(SetWriteResult{Changed: changed, Written: err == nil, Data: data, WriteResult: r}, err)
		}
	})
	return err == nil, err
}

// sameValue compares two canonical values; NaN equals NaN.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && sameFloat(x, y)
	case float32:
		y, ok := b.(float32)
		return ok && sameFloat(x, y)
	case []float64:
		return sameFloats(x, b)
	case []float32:
		return sameFloats(x, b)
	}
	return reflect.DeepEqual(a, b)
}

// sameFloat is x == y, with NaN equal to NaN.
func sameFloat[F float32 | float64](x, y F) bool { return x == y || (x != x && y != y) }

// sameFloats says whether b is a []F of the same length as x holding the
// same values (NaN equal to NaN).
func sameFloats[F float32 | float64](x []F, b any) bool {
	y, ok := b.([]F)
	return ok && slices.EqualFunc(x, y, sameFloat[F])
}
