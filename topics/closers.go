package topics

import (
	"context"
	"slices"
)

type closer struct {
	rank int
	seq  uint64
	fn   func()
}

// onClose registers fn, the Close of a role object made on d (a CSC,
// script, Controller or Remote), for Domain.Close to call before it closes
// the Instances: so that closing a bus ends every object on it as its own
// Close would (commands in flight failed with ErrClosed, goroutines
// stopped, Done closed). The returned function unregisters fn; the object
// calls it from its own Close. On a closed Domain it returns ErrClosed and
// registers nothing.
func onClose(d *Domain, rank int, fn func()) (unregister func(), err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	d.closerSeq++
	c := &closer{rank: rank, seq: d.closerSeq, fn: fn}
	if d.closers == nil {
		d.closers = map[*closer]struct{}{}
	}
	d.closers[c] = struct{}{}
	return func() {
		d.mu.Lock()
		delete(d.closers, c)
		d.mu.Unlock()
	}, nil
}

// closeRoles calls every registered closer, by rank and newest first
// within a rank. d.closed is set, so nothing registers meanwhile.
func (d *Domain) closeRoles() {
	d.mu.Lock()
	cs := make([]*closer, 0, len(d.closers))
	for c := range d.closers {
		cs = append(cs, c)
	}
	d.closers = nil
	d.mu.Unlock()
	slices.SortFunc(cs, func(a, b *closer) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if a.seq > b.seq {
			return -1
		}
		return 1
	})
	for _, c := range cs {
		c.fn()
	}
}

type flusher struct{ fn func(context.Context) error }

// onFlush registers fn, which waits until the records a role on d has
// queued to write itself are written (a Controller's logMessages), for
// Domain.Flush to call before it flushes the producer. The returned
// function unregisters it.
func onFlush(d *Domain, fn func(context.Context) error) (unregister func()) {
	f := &flusher{fn: fn}
	d.mu.Lock()
	if d.flushers == nil {
		d.flushers = map[*flusher]struct{}{}
	}
	d.flushers[f] = struct{}{}
	d.mu.Unlock()
	return func() {
		d.mu.Lock()
		delete(d.flushers, f)
		d.mu.Unlock()
	}
}
