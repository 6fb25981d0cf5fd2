package topics

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/internal/registry"
)

// A record whose writer schema id a reader has not seen is not decoded on
// the poll goroutine while the registry is asked for the schema: the
// lookup runs on a goroutine of its own, and the topic's records wait, in
// order, until it ends (a schemaWait). Other topics read by the same poll
// goroutine go on meanwhile. A registry that does not answer (or answers
// that it cannot now: 5xx, 408, 429) is asked again, with backoff, until
// it does or the instance closes: its records are delayed, not lost. An
// answer that the id does not exist, or a schema that cannot be read as
// the topic, makes the record undecodable, as before.
//
// The records that wait are held in memory up to maxHeldBytes per reader;
// past that, the reader's partitions that have more are paused and fetched
// again, from the first record not held, once the backlog is through.
const (
	// lookupTimeout bounds each attempt to look up a writer schema (and so
	// does the registry client's timeout, RegistryTimeout).
	lookupTimeout = 5 * time.Second
	// retryMin and retryMax bound the time between the starts of two
	// attempts: it doubles from retryMin after each attempt that failed,
	// up to retryMax. An attempt that took longer (one that timed out
	// after lookupTimeout, say) is followed at once.
	retryMin = 100 * time.Millisecond
	retryMax = 5 * time.Second
	// maxHeldBytes bounds the records a reader holds while it waits, each
	// counted with heldOverhead for its bookkeeping; one record is always
	// held, whatever its size.
	maxHeldBytes = 1 << 20
	heldOverhead = 64
)

// poller is what one poll goroutine (Instance.loop) shares with the
// lookups it started.
type poller struct {
	cons *kafka.Consumer

	mu      sync.Mutex
	lookups int                // lookups in flight
	ready   []*Reader          // readers whose lookup ended, to resume
	wake    context.CancelFunc // ends the Poll in progress; nil when none can
}

func noop() {}

// begin resumes the readers whose lookup ended and returns the ctx for the
// next Poll, and its cancel: ctx itself while no lookup is in flight,
// else one that the end of a lookup cancels, so that the Poll returns and
// the reader's records go on at once.
func (p *poller) begin(ctx context.Context) (context.Context, context.CancelFunc) {
	for {
		p.mu.Lock()
		ready := p.ready
		p.ready = nil
		if len(ready) == 0 {
			defer p.mu.Unlock()
			if p.lookups == 0 {
				p.wake = nil
				return ctx, noop
			}
			pctx, cancel := context.WithCancel(ctx)
			p.wake = cancel
			return pctx, cancel
		}
		p.mu.Unlock()
		for _, r := range ready {
			r.resume(ctx)
		}
	}
}

// ended hands r, whose lookup ended, back to the poll goroutine.
func (p *poller) ended(r *Reader) {
	p.mu.Lock()
	p.ready = append(p.ready, r)
	p.lookups--
	if p.wake != nil {
		p.wake()
		p.wake = nil
	}
	p.mu.Unlock()
}

// heldRec is a record that waits.
type heldRec struct {
	part int32
	off  int64
	val  []byte
}

// schemaWait is a reader's records that wait for a writer schema lookup.
// The poll goroutine owns it, except dec and err while a lookup is in
// flight: the lookup's goroutine sets them, then hands the reader back
// (poller.ended).
type schemaWait struct {
	p      *poller
	held   []heldRec // held[head:] wait, oldest first; the first has the id looked up
	head   int
	bytes  int
	paused map[int32]int64 // partitions paused: the offset to fetch each again from
	id     int32           // the id looked up
	dec    *codec.Decoder  // its decoder, when found
	err    error           // why not: the registry's answer, for the record that waits on it
}

// hold keeps kr at the end of the records that wait, or pauses its
// partition when they fill their bound (or it is paused already: a
// record fetched before the pause). It reports whether it kept kr.
func (w *schemaWait) hold(r *Reader, kr *kafka.Record) bool {
	if _, ok := w.paused[kr.Partition]; ok {
		return false // fetched again on resume
	}
	size := len(kr.Value) + heldOverhead
	if w.head < len(w.held) && w.bytes+size > maxHeldBytes {
		w.paused[kr.Partition] = kr.Offset
		w.p.cons.Pause(r.kname, kr.Partition)
		r.in.rl.Log(slog.LevelWarn, "held:"+r.kname, "topics: records waiting for a writer schema fill their bound; partition paused", "topic", r.topic.String(), "partition", kr.Partition, "schemaID", w.id, "held", len(w.held)-w.head)
		return false
	}
	w.held = append(w.held, heldRec{part: kr.Partition, off: kr.Offset, val: bytes.Clone(kr.Value)})
	w.bytes += size
	r.count(func(s *ReaderStats) { s.Held++ })
	return true
}

// startLookup looks up writer schema id on a goroutine of its own; the
// reader's records wait meanwhile (see schemaWait).
func (r *Reader) startLookup(ctx context.Context, p *poller, id int32) {
	w := r.wait
	if w == nil {
		w = &schemaWait{p: p, paused: map[int32]int64{}}
		r.wait = w
	}
	w.id, w.dec, w.err = id, nil, nil
	p.mu.Lock()
	p.lookups++
	p.mu.Unlock()
	r.in.wg.Add(1)
	go r.resolve(ctx, w, id)
}

// resolve asks the registry for writer schema id until it answers or ctx
// ends, and hands the reader back to its poll goroutine with the answer.
func (r *Reader) resolve(ctx context.Context, w *schemaWait, id int32) {
	defer r.in.wg.Done()
	delay := retryMin
	for {
		start := now()
		dec, err := r.resolver(ctx, id)
		if ctx.Err() != nil {
			return // closed
		}
		if err == nil || !registry.Retryable(err) {
			w.dec, w.err = dec, err
			break
		}
		r.count(func(s *ReaderStats) { s.SchemaRetries++ })
		r.in.rl.Log(slog.LevelWarn, "wait:"+r.kname, "topics: no answer from the schema registry for a writer schema; the topic's records wait, retrying", "topic", r.topic.String(), "schemaID", id, "err", err)
		pause := delay - now().Sub(start)
		delay = min(2*delay, retryMax)
		if pause > 0 {
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
	w.p.ended(r)
}

// resume takes the answer of r's lookup and goes on with the records that
// waited for it, in order, until they are through or one needs another
// lookup. Once through, the partitions paused meanwhile are fetched again.
func (r *Reader) resume(ctx context.Context) {
	w := r.wait
	if w.err == nil {
		r.decoders[w.id] = w.dec
	} else {
		r.failed(w.id)
	}
	w.dec = nil
	for w.head < len(w.held) {
		h := &w.held[w.head]
		// Not held once it is processed: counted first, so that whoever
		// takes the record it delivers sees it no longer held.
		r.count(func(s *ReaderStats) { s.Held-- })
		if r.in.process(ctx, w.p, r, h.part, h.off, h.val) {
			r.count(func(s *ReaderStats) { s.Held++ })
			return // another id to look up; h waits for it
		}
		w.bytes -= len(h.val) + heldOverhead
		*h = heldRec{}
		w.head++
	}
	r.wait = nil
	if len(w.paused) > 0 {
		w.p.cons.Resume(r.kname, w.paused)
	}
}
