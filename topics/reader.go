package topics

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// QueueLen bounds the queue (default 100, minimum 10). When full, the
	// oldest record is dropped and counted (ReaderStats.Overflow). The
	// queue's warnings (filling up, as the reference warns at
	// min(10, max(5, QueueLen/10)), QueueLen/2 and 9*QueueLen/10 queued
	// records, and full) are logged only for a reader the application
	// consumes: see Reader.
	QueueLen int
	// MaxHistory is how many historical records to deliver at start: 0 for
	// none, 1 for the newest (per SAL index for indexed components).
	// Commands, acks and telemetry never read history. A topic of several
	// partitions reads each partition's history, delivers it once that
	// partition has read it, then that partition's live records, whatever
	// the others are reading; no historical record of a SAL index is
	// delivered after a newer record of that index.
	MaxHistory int
	// KeepOutOfOrder delivers events and telemetry whose private_sndStamp
	// is older than the last seen for the same SAL index; by default they
	// are dropped and counted, as the reference does.
	KeepOutOfOrder bool
	// Record, when set, makes the reader decode straight into typed
	// records of this type (a struct cmd/salgen generated for the
	// topic), with no map in between: read them with a TypedReader. Its
	// map methods then return each record converted to a map.
	Record *RecordType
}

// ReaderStats counts what happened to a reader's records.
type ReaderStats struct {
	Received    uint64 // records fetched for this topic
	Delivered   uint64 // queued or passed to the callback
	Historical  uint64 // of Delivered, from history
	Filtered    uint64 // for another SAL index
	Overflow    uint64 // dropped: queue full (oldest dropped)
	Lost        uint64 // missing by private_seqNum gaps
	OutOfOrder  uint64 // dropped: older private_sndStamp than the last
	Duplicates  uint64 // dropped: the same writer's private_seqNum again
	Undecodable uint64 // bad framing, unknown schema id or bad Avro
	Violations  uint64 // delivered, but break a bound the reference does not enforce
	Queued      int    // records waiting in the queue now
	// SchemaRetries counts lookups of a writer schema that the registry
	// did not answer (or answered that it could not then) and that were
	// tried again; meanwhile the topic's records wait, in order.
	SchemaRetries uint64
	Held          int // records waiting now for a writer schema lookup
}

// Reader reads one topic of one component instance.
//
// Every record is kept as the newest (Get) and queued for Next, TryNext
// or a callback. A reader is consumed once the application has called
// Next or TryNext on it, or while it has a callback: only then are its
// queue's fill and overflow warnings logged (at most once per LogInterval
// each), since only then does a full queue mean the application falls
// behind. A callback's reader logs them as the queue fills; a reader read
// with Next logs them at its next read, as ts_salobj's next() does (what
// a paused script does not read is not an error until it reads again),
// with the number of records dropped since the read before. A reader that
// is only read with Get, as a Remote's readers often are, fills its queue
// and drops the oldest records silently. The drops are always counted in
// ReaderStats.Overflow.
type Reader struct {
	in     *Instance
	topic  *salxml.Topic
	kname  string
	opts   ReaderOptions
	own    bool // a consumer of its own (see newOwnReader)
	val    *validate.Validator
	codec  *codec.Codec
	id     int32
	track  bool        // count seqNum gaps (events and telemetry)
	ordchk bool        // apply the out-of-order filter
	typ    *RecordType // decode into records of this type (ReaderOptions.Record); nil for maps

	// Owned by the poll goroutine.
	decoders map[int32]*codec.Decoder
	unknown  map[int32]time.Time // schema ids whose lookup failed, until when not to retry
	wait     *schemaWait         // records waiting for a writer schema lookup; nil when none
	dec      *codec.Decoder
	lastSnd  map[int32]*lastStamp
	lastSeq  map[writerKey]*seqState
	hist     *history
	watch    *codec.Watch // the private fields, taken as the native decoder reads them
	// The last writer and SAL index seen, whose states most records
	// share: found again without hashing.
	seqKey  writerKey
	seqLast *seqState
	sndIdx  int32
	sndLast *lastStamp
	// Log kinds (see ratelog), made once.
	kindOverflow, kindFill, kindBounds, kindDup, kindOrder, kindRange string

	mu      sync.Mutex
	q       []slot // ring buffer
	head, n int
	// Records are map[string]any, or Record values on a typed reader.
	latest  any
	exposed bool    // Get, Await or AwaitNewer returned latest: it is never decoded into again
	out     outRing // records given out to one taker only: the ones Recycle takes back
	free    []any   // records to decode into again (Recycle, and drops nobody saw)
	pending any     // the newest record, handed back: freed when a newer one arrives
	// latestMap is latest as a map, on a typed reader whose map methods
	// returned it: made once per record, so that Get returns one map.
	latestMap map[string]any
	notify    chan struct{}
	arrived   chan struct{} // made by a waiting Await, closed when a record becomes the newest
	done      chan struct{}
	cb        func(any)
	inline    func(any) // set before Start; called on the poll goroutine with maps (never on a typed reader)
	cbWake    chan struct{}
	cbDone    chan struct{}
	warned    int
	consumed  bool // Next or TryNext called, or a callback set: queue warnings are logged
	// unseen counts the records a reader read with Next dropped from its
	// full queue since the last read, which reports them (see report).
	unseen   uint64
	closed   bool
	closedCh bool
	stats    ReaderStats
	received atomic.Uint64
	lat      Observer // end-to-end latency; nil when metrics are off
}

// watched are the fields the reader's filters read, in the order of
// Watch.Vals (see the w* constants).
var watched = [...]string{"salIndex", "private_sndStamp", "private_origin", "private_identity", "private_seqNum"}

const (
	wIndex = iota
	wSnd
	wOrigin
	wIdentity
	wSeq
)

// slot is a queued record. shared says Get, Await or AwaitNewer returned
// it while it was the newest: taken from the queue, it is not given out
// to one taker only, so Recycle leaves it alone.
type slot struct {
	rec    any // a map[string]any, or a Record on a typed reader
	shared bool
}

// maxOut bounds the records given out that a reader remembers for
// Recycle: the newest maxOut records that Next, TryNext or a callback
// gave out and that were not handed back yet. A power of two.
const maxOut = 64

// outRing remembers the newest records a reader gave out to one taker
// only (Next, TryNext, a callback) that nothing else was given (see Reader.exposeLocked): the only records Recycle takes
// back. When full, the oldest is forgotten, and is left to the garbage
// collector if it is handed back. Records usually come back in the order
// they went out, or one at a time, so a search finds them at once.
type outRing struct {
	recs    *[maxOut]any // made on first use: readers only read with Get need none
	head, n uint
}

func (o *outRing) add(rec any) {
	if o.recs == nil {
		o.recs = new([maxOut]any)
	}
	if o.n == maxOut {
		o.recs[o.head] = rec
		o.head = (o.head + 1) % maxOut
		return
	}
	o.recs[(o.head+o.n)%maxOut] = rec
	o.n++
}

// remove forgets rec and says whether it was there, searching from the
// oldest.
func (o *outRing) remove(rec any) bool {
	for i := range o.n {
		j := (o.head + i) % maxOut
		if same(o.recs[j], rec) {
			// The oldest takes its place: the order of the others does
			// not matter.
			o.recs[j] = o.recs[o.head]
			o.recs[o.head] = nil
			o.head = (o.head + 1) % maxOut
			o.n--
			return true
		}
	}
	return false
}

// removeNewest forgets rec if it is the newest given out.
func (o *outRing) removeNewest(rec any) {
	if o.n == 0 {
		return
	}
	if j := (o.head + o.n - 1) % maxOut; same(o.recs[j], rec) {
		o.recs[j] = nil
		o.n--
	}
}

type writerKey struct {
	origin   int32
	identity string
	index    int32
}

func newReader(in *Instance, t *salxml.Topic, o ReaderOptions) (*Reader, error) {
	if o.QueueLen == 0 {
		o.QueueLen = DefaultQueueLen
	}
	if o.QueueLen < 10 {
		return nil, fmt.Errorf("topics: %s: queue length %d is below the minimum 10", t, o.QueueLen)
	}
	if t.Kind != salxml.Event {
		o.MaxHistory = 0
	}
	if o.MaxHistory < 0 || o.MaxHistory > o.QueueLen {
		return nil, fmt.Errorf("topics: %s: history %d must be between 0 and the queue length %d", t, o.MaxHistory, o.QueueLen)
	}
	c, err := codec.New(t)
	if err != nil {
		return nil, fmt.Errorf("topics: %s: %w", t, err)
	}
	r := &Reader{
		in: in, topic: t, kname: t.KafkaName(in.d.cfg.Subname), opts: o,
		val: validate.For(t), codec: c, typ: o.Record,
		track:    t.Kind == salxml.Event || t.Kind == salxml.Telemetry,
		ordchk:   !o.KeepOutOfOrder && (t.Kind == salxml.Event || t.Kind == salxml.Telemetry),
		decoders: map[int32]*codec.Decoder{},
		unknown:  map[int32]time.Time{},
		dec:      c.Decoder(),
		lastSnd:  map[int32]*lastStamp{},
		lastSeq:  map[writerKey]*seqState{},
		q:        make([]slot, o.QueueLen),
		notify:   make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	if m := in.d.cfg.Metrics; m != nil {
		r.lat = m.Latency(in.info(t.SALName, t.Kind.String()))
	}
	if r.watch, err = r.dec.NewWatch(watched[:]...); err != nil {
		return nil, fmt.Errorf("topics: %s: %w", t, err)
	}
	r.watch.SetStamp("private_rcvStamp")
	r.kindOverflow, r.kindFill, r.kindBounds = "overflow:"+r.kname, "fill:"+r.kname, "bounds:"+r.kname
	r.kindDup, r.kindOrder, r.kindRange = "dup:"+r.kname, "order:"+r.kname, "range:"+r.kname
	return r, nil
}

// Topic returns the topic definition.
func (r *Reader) Topic() *salxml.Topic { return r.topic }

// Stats returns the reader's counters.
func (r *Reader) Stats() ReaderStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Received = r.received.Load()
	s.Queued = r.n
	return s
}

// Get returns the newest record received (even if already taken from the
// queue), or nil. Records are shared: do not modify them. A record Get
// (or Await, AwaitNewer) returned never changes: the reader never decodes
// into it again, whoever hands it back with Recycle.
func (r *Reader) Get() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.latestMapLocked(r.exposeLocked())
}

// get is Get of a record of either kind.
func (r *Reader) get() any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exposeLocked()
}

// latestMapLocked returns rec, the newest record, as a map: itself on a
// map reader; on a typed reader, the map made of it the first time.
// r.mu is held.
func (r *Reader) latestMapLocked(rec any) map[string]any {
	if r.typ == nil || rec == nil {
		m, _ := rec.(map[string]any)
		return m
	}
	if r.latestMap == nil {
		r.latestMap = r.asMap(rec)
	}
	return r.latestMap
}

// mapOf returns a record Await or AwaitNewer found as a map: the newest
// one's map if it is still the newest (see latestMapLocked), else its own.
func (r *Reader) mapOf(rec any) map[string]any {
	if r.typ == nil {
		m, _ := rec.(map[string]any)
		return m
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if same(rec, r.latest) {
		return r.latestMapLocked(rec)
	}
	return r.asMap(rec)
}

// asMap returns rec as a map: itself, or a Record's fields in a new map.
func (r *Reader) asMap(rec any) map[string]any {
	switch v := rec.(type) {
	case map[string]any:
		return v
	case Record:
		m := make(map[string]any, len(r.topic.Fields))
		v.ToMap(m, true)
		return m
	}
	return nil
}

// same reports whether a and b are the same record (maps are references
// but not comparable; Records are pointers).
func same(a, b any) bool {
	if x, ok := a.(map[string]any); ok {
		y, ok := b.(map[string]any)
		return ok && sameMap(x, y)
	}
	if _, ok := b.(map[string]any); ok {
		return false
	}
	return a == b
}

// exposeLocked returns the newest record, marked as shared: it may be in
// several hands now, so it is never decoded into again. Taken from the
// queue later, it is not remembered as given out (see outRing); given out
// already, it is forgotten, and Recycle leaves it alone. r.mu is held.
func (r *Reader) exposeLocked() any {
	if r.exposed || r.latest == nil {
		return r.latest
	}
	r.exposed = true
	if r.n > 0 {
		// Queued: the newest record is the last one queued.
		r.q[(r.head+r.n-1)%len(r.q)].shared = true
	} else {
		// Given out already (the last one given out), or dropped.
		r.out.removeNewest(r.latest)
		r.pending = nil // only ever the newest record
	}
	return r.latest
}

// Await returns the newest record at once if there is one, history
// included (even an old one), else waits for the first to arrive or ctx
// to end, as the reference's aget. It leaves the queue alone, and works
// with a callback set.
func (r *Reader) Await(ctx context.Context) (map[string]any, error) {
	rec, err := r.await(ctx)
	if err != nil {
		return nil, err
	}
	return r.mapOf(rec), nil
}

// await is Await of a record of either kind.
func (r *Reader) await(ctx context.Context) (any, error) {
	r.mu.Lock()
	rec, arrived, closed := r.exposeLocked(), r.arrivedLocked(), r.closed
	r.mu.Unlock()
	switch {
	case rec != nil:
		return rec, nil
	case closed:
		return nil, ErrClosed
	}
	select {
	case <-arrived:
		return r.get(), nil
	case <-r.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// arrivedLocked is the channel closed when the next record becomes the
// newest. r.mu is held.
func (r *Reader) arrivedLocked() chan struct{} {
	if r.arrived == nil {
		r.arrived = make(chan struct{})
	}
	return r.arrived
}

// AwaitNewer returns the newest record once it is another one than prev
// (at once if it is already; prev nil is Await), waiting until a newer
// record arrives or ctx ends. Like Await it leaves the queue alone: it
// follows the newest value, skipping records that arrive in between. prev
// is best a record Get, Await or AwaitNewer returned, which is never
// reused; one taken with Next must not have been handed back with Recycle
// (a reused map is the same map).
func (r *Reader) AwaitNewer(ctx context.Context, prev map[string]any) (map[string]any, error) {
	var p any
	if prev != nil {
		p = prev
		if r.typ != nil {
			r.mu.Lock()
			if r.latestMap != nil && sameMap(prev, r.latestMap) {
				p = r.latest // the map made of the newest record
			}
			r.mu.Unlock()
		}
	}
	rec, err := r.awaitNewer(ctx, p)
	if err != nil {
		return nil, err
	}
	return r.mapOf(rec), nil
}

// awaitNewer is AwaitNewer of a record of either kind.
func (r *Reader) awaitNewer(ctx context.Context, prev any) (any, error) {
	for {
		r.mu.Lock()
		rec, arrived, closed := r.latest, r.arrivedLocked(), r.closed
		newer := rec != nil && (prev == nil || !same(rec, prev))
		if newer {
			r.exposeLocked()
		}
		r.mu.Unlock()
		switch {
		case newer:
			return rec, nil
		case closed:
			return nil, ErrClosed
		}
		select {
		case <-arrived:
		case <-r.done:
			return nil, ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// maxFree bounds the records a reader keeps to decode into again.
const maxFree = 64

// Recycle hands back a record of this reader that the caller is done
// with, so that the reader decodes a later record into it instead of
// allocating a new one: arrays of the same length are overwritten in
// place and equal strings kept, which saves most of the cost of reading a
// large topic (MTM1M3 forceActuatorData: about a third of the time of a
// fresh record, see BENCHMARKS.md). Recycling is optional; records never
// handed back are garbage collected as usual.
//
// As with franz-go's Record.Recycle, the caller must not use rec, or any
// slice taken from it, after the call: it is for records taken with Next,
// TryNext or a callback that nothing else in the program still holds.
// Only such records are taken back, and only ones the reader gave out
// alone: a record that Get, Await or AwaitNewer also returned (the SDK
// calls them too: Remote.HeartbeatAge, sal.SetSummaryState) is left to
// the garbage collector, and so is a record handed back twice, or given
// out before the newest 64 that were not handed back yet. The newest
// record is taken back only once a newer one has arrived, since Get
// returns it until then. Records beyond a small pool, and after Close,
// are left to the garbage collector too, and records of another topic (or
// written with another version of this topic's schema: their
// private_revCode differs) are ignored, so that a record handed to the
// wrong reader cannot come back with another topic's fields. Recycle
// never blocks. On a typed reader (ReaderOptions.Record) it does nothing:
// the maps it gives out are copies; hand typed records back with
// TypedReader.Recycle.
func (r *Reader) Recycle(rec map[string]any) {
	if rev, _ := rec["private_revCode"].(string); rev != r.topic.RevCode() || r.typ != nil {
		return // a typed reader's maps are copies: nothing to take back
	}
	r.recycle(rec)
}

// recycleRecord is Recycle of a typed record.
func (r *Reader) recycleRecord(rec Record) {
	if r.typ == nil || rec == nil || reflectNil(rec) || rec.RecordType() != r.typ || rec.header().RevCode != r.topic.RevCode() {
		return
	}
	r.recycle(rec)
}

// recycle takes rec back if it was given out to one taker only.
func (r *Reader) recycle(rec any) {
	r.mu.Lock()
	switch {
	case r.closed || !r.out.remove(rec):
	case same(rec, r.latest):
		r.pending = rec // not exposed: out holds no exposed record
	default:
		r.freeLocked(rec)
	}
	r.mu.Unlock()
}

// freeLocked keeps rec to decode into again, unless the pool is full.
func (r *Reader) freeLocked(rec any) {
	if len(r.free) < maxFree {
		r.free = append(r.free, rec)
	}
}

// setLatestLocked makes rec the newest record, and frees the previous
// newest if it was handed back while Get could still return it.
func (r *Reader) setLatestLocked(rec any) {
	if r.pending != nil {
		r.freeLocked(r.pending)
		r.pending = nil
	}
	r.latest, r.exposed, r.latestMap = rec, false, nil
	if r.arrived != nil { // someone waits (Await): no allocation per record otherwise
		close(r.arrived)
		r.arrived = nil
	}
}

// reuse returns a record to decode into: one handed back, or a new map
// (a new Record on a typed reader).
func (r *Reader) reuse() any {
	r.mu.Lock()
	if n := len(r.free); n > 0 {
		rec := r.free[n-1]
		r.free[n-1] = nil
		r.free = r.free[:n-1]
		r.mu.Unlock()
		return rec
	}
	r.mu.Unlock()
	if r.typ != nil {
		return r.typ.New()
	}
	return make(map[string]any, len(r.topic.Fields))
}

// discard takes back a record the poll goroutine decoded and dropped
// before anyone could see it (undecodable, or replaced by a newer
// historical one).
func (r *Reader) discard(rec any) { r.drop(rec, nil) }

// drop counts a record dropped before anyone could see it (filtered,
// duplicate, out of order) with f, if not nil, and takes it back.
func (r *Reader) drop(rec any, f func(*ReaderStats)) {
	r.mu.Lock()
	if f != nil {
		f(&r.stats)
	}
	r.freeLocked(rec)
	r.mu.Unlock()
}

// sameMap reports whether a and b are the same map (maps are references
// but not comparable).
func sameMap(a, b map[string]any) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// Next removes and returns the oldest queued record, waiting for one until
// ctx is done.
func (r *Reader) Next(ctx context.Context) (map[string]any, error) {
	rec, err := r.next(ctx)
	return r.asMap(rec), err
}

// next is Next of a record of either kind.
func (r *Reader) next(ctx context.Context) (any, error) {
	for {
		r.mu.Lock()
		r.consumed = true
		switch {
		case r.cb != nil:
			r.mu.Unlock()
			return nil, ErrCallbackSet
		case r.n > 0:
			r.reportLocked()
			rec := r.takeLocked()
			more := r.n > 0
			r.mu.Unlock()
			if more {
				select {
				case r.notify <- struct{}{}:
				default:
				}
			}
			return rec, nil
		case r.closed:
			r.mu.Unlock()
			return nil, ErrClosed
		}
		r.mu.Unlock()
		select {
		case <-r.notify:
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TryNext removes and returns the oldest queued record, or nil at once.
func (r *Reader) TryNext() map[string]any { return r.asMap(r.tryNext()) }

// tryNext is TryNext of a record of either kind.
func (r *Reader) tryNext() any {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.consumed = true
	if r.n == 0 || r.cb != nil {
		return nil
	}
	r.reportLocked()
	return r.takeLocked()
}

// reportLocked is what a read with Next or TryNext reports of the queue
// it reads, as the reference's next() does: the fill warnings, and the
// records dropped since the last read, if any. A queue nobody reads (a
// paused script's) fills and overflows without a word until it is read
// again; the drops are counted in ReaderStats.Overflow either way.
func (r *Reader) reportLocked() {
	r.checkFillLocked()
	if r.unseen > 0 {
		r.in.rl.Log(slog.LevelError, r.kindOverflow, "topics: reader queue was full; the oldest records were dropped before this read",
			"topic", r.topic.String(), "queue_len", len(r.q), "dropped", r.unseen, "dropped_total", r.stats.Overflow)
		r.unseen = 0
	}
}

// Flush discards every queued record.
func (r *Reader) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cb != nil {
		return ErrCallbackSet
	}
	for r.n > 0 {
		r.popLocked()
	}
	return nil
}

// SetCallback delivers every record to fn, one at a time, on a goroutine
// of this reader (so a slow callback delays only this topic; its queue
// fills and drops the oldest, counted). Records already queued are
// delivered first. nil stops callbacks. No callback runs after Close.
// SetCallback(nil) and Instance.Close wait for a running callback to
// return, so a callback must not call them itself (it would wait for
// itself); it can call them from a new goroutine. It does nothing on a
// reader given to setInline.
func (r *Reader) SetCallback(fn func(map[string]any)) {
	if fn == nil {
		r.setCallback(nil)
		return
	}
	r.setCallback(func(rec any) { fn(r.asMap(rec)) })
}

// setCallback is SetCallback of records of either kind.
func (r *Reader) setCallback(fn func(any)) {
	r.mu.Lock()
	if r.closed || r.inline != nil {
		r.mu.Unlock()
		return
	}
	old := r.cb
	r.cb = fn
	if fn != nil {
		r.consumed = true
	}
	if fn != nil && old == nil {
		r.cbWake = make(chan struct{}, 1)
		r.cbDone = make(chan struct{})
		wake, done := r.cbWake, r.cbDone
		r.in.wg.Add(1)
		go r.callbackLoop(wake, done)
		if r.n > 0 {
			wake <- struct{}{}
		}
	}
	var done chan struct{}
	if fn == nil && old != nil {
		close(r.cbWake)
		done = r.cbDone
	}
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// setInline makes r deliver every record to fn on the instance's poll goroutine,
// as it is fetched, instead of queuing it: no goroutine handoff, so it is
// the fastest way to react to a record (a Remote matches command acks to
// their waiting commands this way). fn must return quickly and never
// block: while it runs, no other reader fed by the same consumer (see
// newOwnReader) receives anything. It
// must not call the instance's or this reader's Close or SetCallback.
// Records passed to fn are not queued (Next, TryNext and SetCallback see
// none), but Get and Stats see them. setInline must be called before the
// instance starts; no call runs after Close.
func setInline(r *Reader, fn func(map[string]any)) error {
	r.in.mu.Lock()
	defer r.in.mu.Unlock()
	if err := r.in.unstartedLocked(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cb != nil {
		return ErrCallbackSet
	}
	if r.typ != nil {
		return fmt.Errorf("topics: %s: a typed reader cannot deliver inline", r.topic)
	}
	r.inline = func(rec any) { fn(rec.(map[string]any)) }
	return nil
}

func (r *Reader) callbackLoop(wake <-chan struct{}, done chan struct{}) {
	defer r.in.wg.Done()
	defer close(done)
	for range wake {
		for {
			r.mu.Lock()
			if r.cb == nil || r.closed || r.n == 0 {
				r.mu.Unlock()
				break
			}
			rec := r.takeLocked()
			fn := r.cb
			r.mu.Unlock()
			r.safeCall(fn, rec)
		}
	}
}

func (r *Reader) safeCall(fn func(any), rec any) {
	defer func() {
		if p := recover(); p != nil {
			r.in.rl.Log(slog.LevelError, "callback-panic:"+r.kname, "topics: callback panicked", "topic", r.topic.String(), "panic", fmt.Sprint(p))
		}
	}()
	fn(rec)
}

// popLocked removes the oldest queued record.
func (r *Reader) popLocked() slot {
	s := r.q[r.head]
	r.q[r.head] = slot{}
	r.head = (r.head + 1) % len(r.q)
	r.n--
	return s
}

// takeLocked removes the oldest queued record to give it out (Next,
// TryNext, a callback), remembering it for Recycle unless it was exposed
// (see exposeLocked).
func (r *Reader) takeLocked() any {
	s := r.popLocked()
	if !s.shared {
		r.out.add(s.rec)
	}
	return s.rec
}

// push queues rec, dropping the oldest when full, and logs at the
// reference's fill levels.
func (r *Reader) push(rec any, historical bool) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	if r.n == len(r.q) && r.consumed { // an inline reader queues nothing, so is never full
		// Before dropping, give the goroutine that takes the records (a
		// callback's, or the application's in Next) one chance to run:
		// woken by the pushes before this one, it may still be waiting
		// for a processor that this goroutine or the Kafka client's
		// hold. With a callback that only recycles its record, a quarter
		// of the records of a burst of small ones were dropped that way
		// on two cores (BENCHMARKS.md §9). A callback that is really
		// behind costs this goroutine one yield per record while the
		// queue stays full, and never blocks it.
		r.mu.Unlock()
		runtime.Gosched()
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return
		}
	}
	if r.n == len(r.q) {
		r.popLocked()
		r.stats.Overflow++
		switch {
		case r.cb != nil:
			r.in.rl.Log(slog.LevelError, r.kindOverflow, "topics: reader queue is full; the oldest record was dropped", "topic", r.topic.String(), "queue_len", len(r.q), "dropped_total", r.stats.Overflow)
		case r.consumed:
			r.unseen++ // told at the next read
		}
	}
	if r.inline != nil {
		r.setLatestLocked(rec) // not remembered for Recycle: nobody hands these back
		r.stats.Delivered++
		if historical {
			r.stats.Historical++
		}
		fn := r.inline
		r.mu.Unlock()
		r.safeCall(fn, rec)
		return
	}
	r.q[(r.head+r.n)%len(r.q)] = slot{rec: rec}
	r.n++
	r.setLatestLocked(rec)
	r.stats.Delivered++
	if historical {
		r.stats.Historical++
	}
	if r.cb != nil {
		r.checkFillLocked()
	}
	// Wake the callback goroutine while holding r.mu: SetCallback(nil) and
	// close close cbWake under r.mu, so a send after unlocking could hit a
	// closed channel and panic. Both sends are non-blocking.
	if r.cb != nil {
		select {
		case r.cbWake <- struct{}{}:
		default:
		}
	}
	// A goroutine woken here (the callback's, or one waiting in Next)
	// waits to run on this goroutine's processor until it yields, and
	// the poll goroutine yields only between fetches: a fetch of a few
	// thousand records would fill the queue and drop the oldest while the
	// consumer never ran. So the poll goroutine yields once as the queue
	// of a consumed reader reaches half full.
	yield := r.consumed && r.n == len(r.q)/2
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	if yield {
		runtime.Gosched()
	}
}

// checkFillLocked warns when the queue crosses min(10, max(5, len/10)),
// len/2 (if len >= 20) and 9*len/10, as the reference does, for a
// consumed reader.
func (r *Reader) checkFillLocked() {
	lvl := fillLevel(r.n, len(r.q))
	if lvl > r.warned && r.consumed {
		r.in.rl.Log(slog.LevelWarn, r.kindFill, "topics: reader queue filling up", "topic", r.topic.String(), "queued", r.n, "queue_len", len(r.q))
	}
	r.warned = lvl
}

// fillLevel is the warning level a queue of length l holding n records
// has reached: the position, counted from 1, of the last of its levels
// (see checkFillLocked) that n reaches, 0 for none. A queue shorter than
// 6 has its 90 % level below the first one.
func fillLevel(n, l int) int {
	lvl := 0
	if n >= min(10, max(5, l/10)) {
		lvl = 1
	}
	top := 2
	if l >= 20 {
		if n >= l/2 {
			lvl = 2
		}
		top = 3
	}
	if n >= 9*l/10 {
		lvl = top
	}
	return lvl
}

func (r *Reader) close() {
	r.mu.Lock()
	r.closed = true
	var done chan struct{}
	if r.cb != nil {
		r.cb = nil
		close(r.cbWake)
		done = r.cbDone
	}
	if !r.closedCh {
		r.closedCh = true
		close(r.done)
	}
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

func (r *Reader) count(f func(*ReaderStats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}
