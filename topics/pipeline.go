package topics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/kafka"
)

// loop is the Instance's reader pipeline: it polls the consumer and hands
// each Kafka record to the reader of its topic, which decodes it
// (resolving other writers' schemas), checks it, tracks history and
// sequence numbers, and delivers it.
func (in *Instance) loop(ctx context.Context, cons *kafka.Consumer) {
	defer in.wg.Done()
	p := &poller{cons: cons}
	handle := func(rec *kafka.Record) { in.handle(ctx, p, rec) }
	for {
		pctx, stop := p.begin(ctx)
		err := cons.Poll(pctx, handle)
		stop()
		if ctx.Err() != nil || errors.Is(err, kafka.ErrClosed) {
			return
		}
		if err != nil {
			in.rl.Log(slog.LevelWarn, "fetch", "topics: fetch error; retrying", "instance", in.comp.NameIndex(in.index), "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// history is a reader's late-joiner state while it reads back. Each
// partition reads its history, then its live records: a record is
// historical if its partition has not read its history yet and its
// offset is at most the partition's last historical one. When a partition
// has read its history, its newest historical record of each SAL index is
// delivered, and its later records are live, whatever the other
// partitions are reading.
type history struct {
	parts map[int32]*partHistory // the partitions still reading history
	// The newest private_sndStamp of each SAL index (0 for a component
	// that is not indexed) delivered so far: a partition that finishes
	// its history later delivers no older record of that index (an event
	// topic whose partitions were added to holds an index's older
	// records in one partition and its newer ones in another).
	delivered map[int32]float64
}

// partHistory is one partition's history while it is read.
type partHistory struct {
	target int64 // offset of the last historical record
	latest []histRecord
	pos    map[int32]int // salIndex -> position in latest
}

// histRecord is a historical record kept until its partition has read its
// history.
type histRecord struct {
	rec any
	idx int32 // its SAL index (0 for a component that is not indexed)
	snd float64
}

func (in *Instance) handle(ctx context.Context, p *poller, kr *kafka.Record) {
	r := in.readers[kr.Topic]
	if r == nil {
		return
	}
	if r.wait != nil {
		// Behind a record whose writer schema is looked up.
		if r.wait.hold(r, kr) {
			r.received.Add(1)
		}
		return
	}
	r.received.Add(1)
	if in.process(ctx, p, r, kr.Partition, kr.Offset, kr.Value) {
		r.wait.hold(r, kr)
	}
}

// process decodes, filters and delivers the record of r at offset off of
// partition part, whose value is v, keeping it as history while its
// partition reads back. It reports instead whether the record must wait
// for a lookup of its writer schema, which it started.
func (in *Instance) process(ctx context.Context, p *poller, r *Reader, part int32, off int64, v []byte) (wait bool) {
	var ph *partHistory
	if r.hist != nil {
		if ph = r.hist.parts[part]; ph != nil && off > ph.target {
			// Past the partition's last historical offset without having
			// read it (a transaction marker a read_committed consumer
			// skips, say): its history is over, and this record is live.
			in.endHistory(r, part)
			ph = nil
		}
	}
	f := facts{rcv: TAI(), hist: ph}
	rec, wait := r.decode(ctx, p, v, &f)
	if wait {
		return true
	}
	if rec != nil {
		r.accept(rec, &f)
	}
	if ph != nil && off >= ph.target {
		in.endHistory(r, part)
	}
	return false
}

// endHistory delivers the history of partition p of r, which has read
// it, and once every partition has, marks r caught up.
func (in *Instance) endHistory(r *Reader, p int32) {
	h := r.hist
	ph := h.parts[p]
	delete(h.parts, p)
	for _, hr := range ph.latest {
		if snd, ok := h.delivered[hr.idx]; ok && hr.snd < snd {
			r.discard(hr.rec) // older than what was delivered of its index
			continue
		}
		h.sawDelivered(hr.idx, hr.snd)
		r.deliver(hr.rec, true, false)
	}
	if len(h.parts) > 0 {
		return
	}
	r.hist = nil
	in.pending--
	if in.pending == 0 {
		close(in.ready)
	}
}

// sawDelivered notes that a record of SAL index idx sent at snd was
// delivered.
func (h *history) sawDelivered(idx int32, snd float64) {
	if h.delivered == nil {
		h.delivered = map[int32]float64{}
	}
	if old, ok := h.delivered[idx]; !ok || snd > old {
		h.delivered[idx] = snd
	}
}

// facts are what a reader's filters and check need of a decoded record:
// its private fields, and whether it is known to pass the read-side
// check. The reader's own decoder gathers them as it decodes (see
// codec.Watch); for records decoded with another writer schema they are
// looked up.
type facts struct {
	rcv      float64      // when the record was received: its private_rcvStamp
	hist     *partHistory // the history of its partition, if the record is historical
	stamped  bool         // the decoder stored rcv in the record already
	index    int32
	snd      float64
	origin   int32
	identity string
	seq      int32
	checked  bool // obeys every rule of validate's Check
}

// decode splits the framing and decodes with the writer's schema; it
// returns nil (counted and logged) for what cannot be decoded, or wait
// for a record whose writer schema it started to look up (see
// schemaWait).
func (r *Reader) decode(ctx context.Context, p *poller, v []byte, f *facts) (_ any, wait bool) {
	id, body, err := codec.SplitHeader(v)
	if err != nil {
		r.bad("framing", err)
		return nil, false
	}
	dec := r.dec
	if id != r.id {
		if dec = r.decoders[id]; dec == nil {
			if err = r.lookup(ctx, p, id); err != nil {
				r.bad("schema", err)
				return nil, false
			}
			return nil, true
		}
	}
	if r.typ != nil && dec == r.dec {
		return r.decodeRecord(id, body, f), false
	}
	var rec map[string]any
	if r.typ == nil {
		rec = r.reuse().(map[string]any)
	} else {
		rec = make(map[string]any, len(r.topic.Fields)) // converted below
	}
	var iss codec.Issues
	native := dec == r.dec
	if native {
		r.watch.Stamp = f.rcv
		iss, err = dec.DecodeWatch(body, rec, r.watch)
	} else {
		iss, err = dec.DecodeIssues(body, rec)
	}
	if err != nil {
		if r.typ == nil { // a typed reader's scratch map is not its to keep
			r.discard(rec)
		}
		r.bad("avro", fmt.Errorf("schema id %d: %w", id, err))
		return nil, false
	}
	if !iss.Zero() {
		r.count(func(s *ReaderStats) { s.Violations++ })
		r.in.rl.Log(slog.LevelWarn, r.kindRange, "topics: record holds values outside their SAL type's range; delivered converted", "topic", r.topic.String(), "issues", fmt.Sprintf("%+v", iss))
	}
	if native {
		w := r.watch.Vals
		f.index, _ = w[wIndex].(int32)
		f.snd, _ = w[wSnd].(float64)
		f.origin, _ = w[wOrigin].(int32)
		f.identity, _ = w[wIdentity].(string)
		f.seq, _ = w[wSeq].(int32)
		f.stamped = r.watch.Stamped
		// Every field was set to a canonical value obeying the rules; a
		// record handed back with keys of its own would still hold them.
		f.checked = !r.watch.Suspect && len(rec) == r.val.NumFields()
	} else {
		f.index, _ = rec["salIndex"].(int32)
		f.snd, _ = rec["private_sndStamp"].(float64)
		f.origin, _ = rec["private_origin"].(int32)
		f.identity, _ = rec["private_identity"].(string)
		f.seq, _ = rec["private_seqNum"].(int32)
	}
	if r.typ != nil {
		// A typed reader's record written with another version of the
		// schema: decoded and resolved as a map, checked, converted.
		r.checkBounds(rec)
		tr := r.reuse().(Record)
		_ = tr.FromMap(rec) // what the type holds of it
		tr.header().RcvStamp = f.rcv
		f.checked, f.stamped = true, true
		return tr, false
	}
	return rec, false
}

// decodeRecord decodes body, written with the reader's own schema, into a
// typed record with the record's own decoder, and takes its facts.
func (r *Reader) decodeRecord(id int32, body []byte, f *facts) any {
	rec := r.reuse().(Record)
	viol, err := rec.DecodeAvro(body)
	if err != nil {
		r.discard(rec)
		r.bad("avro", fmt.Errorf("schema id %d: %w", id, err))
		return nil
	}
	if viol > 0 {
		r.count(func(s *ReaderStats) { s.Violations++ })
		r.in.rl.Log(slog.LevelWarn, r.kindBounds, "topics: record breaks a bound the reference does not enforce; delivered", "topic", r.topic.String(), "violations", viol)
	}
	h := rec.header()
	f.index, f.snd, f.origin, f.identity, f.seq = h.SalIndex, h.SndStamp, h.Origin, h.Identity, h.SeqNum
	h.RcvStamp = f.rcv
	f.stamped, f.checked = true, true
	return rec
}

// Limits on looking up writer schemas by id. Records with garbage schema
// ids must not be able to stall a reader: lookups of ids not seen before
// are limited per second (records over the limit are undecodable), and
// ids the registry said it does not hold are not asked for again for a
// while. A registry that does not answer delays the topic's records
// instead (see schemaWait).
const (
	lookupsPerSec = 20
	unknownRetry  = 30 * time.Second
	maxUnknownIDs = 1024
)

// lookup starts looking up a writer schema id not seen before (see
// startLookup), or returns why the record cannot be decoded: the answer to
// the lookup it waited for, the registry having said recently that it
// does not hold the id, or too many lookups.
func (r *Reader) lookup(ctx context.Context, p *poller, id int32) error {
	if w := r.wait; w != nil && w.err != nil && w.id == id {
		err := w.err
		w.err = nil
		return err
	}
	t := now()
	if until, ok := r.unknown[id]; ok && t.Before(until) {
		return fmt.Errorf("schema id %d: lookup failed recently; retrying after %s", id, until.Format(time.TimeOnly))
	}
	in := r.in
	in.lookMu.Lock()
	if t.Sub(in.lookupWindow) >= time.Second {
		in.lookupWindow, in.lookups = t, 0
	}
	if in.lookups >= lookupsPerSec {
		in.lookMu.Unlock()
		return fmt.Errorf("schema id %d: not looked up: over %d schema lookups per second", id, lookupsPerSec)
	}
	in.lookups++
	in.lookMu.Unlock()
	r.startLookup(ctx, p, id)
	return nil
}

// failed notes that the registry has no usable schema with id, so that
// records with it are not looked up again for unknownRetry.
func (r *Reader) failed(id int32) {
	t := now()
	if len(r.unknown) >= maxUnknownIDs {
		for k, until := range r.unknown {
			if t.After(until) {
				delete(r.unknown, k)
			}
		}
		if len(r.unknown) >= maxUnknownIDs {
			clear(r.unknown)
		}
	}
	r.unknown[id] = t.Add(unknownRetry)
}

// resolver makes the decoder of writer schema id, fetching the schema
// (one attempt, bounded by lookupTimeout). It runs on the lookup's
// goroutine: it leaves the reader's state alone.
func (r *Reader) resolver(ctx context.Context, id int32) (*codec.Decoder, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	text, err := r.in.d.reg.Schema(ctx, int(id))
	if err != nil {
		return nil, err
	}
	c, err := codec.NewResolving(text, r.topic)
	if err != nil {
		return nil, fmt.Errorf("writer schema id %d cannot be read as %s: %w", id, r.topic, err)
	}
	return c, nil
}

func (r *Reader) bad(kind string, err error) {
	r.count(func(s *ReaderStats) { s.Undecodable++ })
	r.in.rl.Log(slog.LevelWarn, kind+":"+r.kname, "topics: undecodable record skipped", "topic", r.topic.String(), "kind", kind, "err", err)
}

// accept applies the reference's filters to a decoded record and queues it
// (or keeps it as history).
func (r *Reader) accept(rec any, f *facts) {
	rcv, historical := f.rcv, f.hist != nil
	if !f.stamped {
		rec.(map[string]any)["private_rcvStamp"] = rcv // typed records are stamped as decoded
	}
	idx, snd := f.index, f.snd
	if r.topic.Indexed && r.in.index != 0 && int(idx) != r.in.index {
		r.drop(rec, func(s *ReaderStats) { s.Filtered++ })
		return
	}
	if r.track {
		k := writerKey{origin: f.origin, identity: f.identity, index: idx}
		st := r.seqLast
		if st == nil || k != r.seqKey {
			if st = r.lastSeq[k]; st == nil {
				st = &seqState{}
				r.lastSeq[k] = st
				st.reset(f.seq, snd, !historical)
			} else {
				st = r.nextSeq(rec, st, f.seq, snd, historical, idx)
			}
			r.seqKey, r.seqLast = k, st
		} else {
			st = r.nextSeq(rec, st, f.seq, snd, historical, idx)
		}
		if st == nil {
			return // a duplicate, dropped
		}
	}
	last := r.sndLast
	if last == nil || idx != r.sndIdx {
		if last = r.lastSnd[idx]; last == nil {
			last = &lastStamp{}
			r.lastSnd[idx] = last
		}
		r.sndIdx, r.sndLast = idx, last
	}
	if !last.seen || snd >= last.snd {
		last.snd, last.seen = snd, true
	} else if r.ordchk && !historical {
		r.drop(rec, func(s *ReaderStats) { s.OutOfOrder++ })
		r.in.rl.Log(slog.LevelWarn, r.kindOrder, "topics: record older than the last one dropped", "topic", r.topic.String(), "salIndex", idx)
		return
	}
	if !r.topic.Indexed {
		idx = 0
	}
	if historical {
		ph := f.hist
		hr := histRecord{rec: rec, idx: idx, snd: snd}
		if p, ok := ph.pos[idx]; ok {
			r.discard(ph.latest[p].rec)
			ph.latest[p] = hr
		} else {
			ph.pos[idx] = len(ph.latest)
			ph.latest = append(ph.latest, hr)
		}
		return
	}
	if r.lat != nil {
		r.lat.Observe(rcv - snd)
	}
	if r.hist != nil {
		r.hist.sawDelivered(idx, snd)
	}
	r.deliver(rec, false, f.checked)
}

// lastStamp is the newest private_sndStamp a reader saw of one SAL index.
type lastStamp struct {
	snd  float64
	seen bool
}

// nextSeq files seq of the writer whose state is st and returns st, or
// nil when the record is a duplicate, which it drops.
func (r *Reader) nextSeq(rec any, st *seqState, seq int32, snd float64, historical bool, idx int32) *seqState {
	switch lost, dup := st.next(seq, snd, !historical); {
	case dup:
		// A record of this writer seen already (a producer retry at
		// acks=1 that reached the log twice, perhaps a whole batch):
		// counted, not delivered.
		r.drop(rec, func(s *ReaderStats) { s.Duplicates++ })
		r.in.rl.Log(slog.LevelWarn, r.kindDup, "topics: duplicate record dropped", "topic", r.topic.String(), "salIndex", idx, "private_seqNum", seq)
		return nil
	case lost > 0:
		r.count(func(s *ReaderStats) { s.Lost += lost })
	}
	return st
}

// deliver checks the bounds the reference does not enforce (counted and
// logged, never dropped) of a record that passed every filter, and
// queues it. checked says the decoder found the record obeys them all
// already (see facts).
func (r *Reader) deliver(rec any, historical, checked bool) {
	if m, ok := rec.(map[string]any); ok && !checked { // typed records are checked as decoded
		r.checkBounds(m)
	}
	r.push(rec, historical)
}

// checkBounds counts and logs a map record that breaks a bound the
// reference does not enforce.
func (r *Reader) checkBounds(rec map[string]any) {
	if rep := r.val.Check(rec); !rep.OK() {
		r.count(func(s *ReaderStats) { s.Violations++ })
		r.in.rl.Log(slog.LevelWarn, r.kindBounds, "topics: record breaks a bound the reference does not enforce; delivered", "topic", r.topic.String(), "report", rep.String())
	}
}

// seqWindow is how many recent seqNums of each writer a reader remembers,
// to tell a record seen already from one that arrives late.
const seqWindow = 1024

// seqState is what a reader knows of one writer's (origin, identity and
// SAL index) seqNums.
type seqState struct {
	max  int32   // highest seqNum seen since the writer (re)started
	snd  float64 // newest private_sndStamp seen
	live bool    // the record with max was read live, not from history
	seen [seqWindow / 64]uint64
}

func (s *seqState) bit(seq int32) (int, uint64) {
	i := int(uint32(seq) % seqWindow)
	return i / 64, 1 << (i % 64)
}

// reset starts the writer's sequence again at seq.
func (s *seqState) reset(seq int32, snd float64, live bool) {
	*s = seqState{max: seq, snd: snd, live: live}
	s.mark(seq)
}

// next records seq and says how many seqNums went missing before it, or
// that it is a duplicate: a seqNum of the last seqWindow seen already, in
// a record no newer than the newest seen (a writer that starts again from
// a lower seqNum writes newer stamps; a record that arrives late, from
// another partition say, has a seqNum not seen yet). Gaps count only
// between live records: history read back from a compacted event topic
// has holes where older records of the same key were compacted away.
// Writers wrap from 2^31-1 to 1, which is a restart here.
func (s *seqState) next(seq int32, snd float64, live bool) (lost uint64, dup bool) {
	switch {
	case seq > s.max:
		if live && s.live {
			lost = uint64(seq - s.max - 1)
		}
		if int64(seq)-int64(s.max) >= seqWindow {
			clear(s.seen[:])
		} else {
			for q := s.max + 1; q < seq; q++ {
				w, b := s.bit(q)
				s.seen[w] &^= b
			}
		}
		s.max, s.live = seq, live
		s.snd = max(s.snd, snd)
		s.mark(seq)
		return lost, false
	case snd > s.snd:
		s.reset(seq, snd, live)
	case int64(s.max)-int64(seq) < seqWindow:
		if w, b := s.bit(seq); s.seen[w]&b != 0 {
			return 0, true
		}
		s.mark(seq)
	}
	return 0, false
}

func (s *seqState) mark(seq int32) {
	w, b := s.bit(seq)
	s.seen[w] |= b
}
