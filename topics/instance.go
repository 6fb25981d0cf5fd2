package topics

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/internal/ratelog"
	salxml "github.com/lsst-sal/salgo/xml"
)

const (
	stateNew = iota
	stateStarting
	stateStarted
	stateClosed
)

// Instance is one component instance (name and SAL index) taking part in
// the bus, as ts_salobj's SalInfo: its readers share one consumer (except
// those made with newOwnReader), its writers the Domain's producer.
type Instance struct {
	d           *Domain
	comp        *salxml.Component
	index       int
	identity    string
	boxIdentity any
	boxOrigin   any
	rl          *ratelog.Limiter

	mu      sync.Mutex
	state   int
	wstate  atomic.Int32 // state, for writable
	readers map[string]*Reader
	order   []*Reader
	writers map[*salxml.Topic]*Writer
	cons    []*kafka.Consumer // the shared one, then one per reader of its own
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	ready   chan struct{}
	closed  chan struct{} // closed by Close
	pending int           // history readers not caught up; poll goroutine only

	// Schema lookups started by the poll goroutines (see Reader.lookup).
	lookMu       sync.Mutex
	lookupWindow time.Time // start of the current second of lookups
	lookups      int       // lookups in that second
}

// NewInstance makes an instance of the named component with the given SAL
// index (0 for non-indexed components; for indexed ones 0 reads every
// index) and identity (private_identity of what it writes; "" means the
// Domain's DefaultIdentity).
func (d *Domain) NewInstance(comp *salxml.Component, index int, identity string) (*Instance, error) {
	if err := comp.CheckIndex(index); err != nil {
		return nil, err
	}
	if identity == "" {
		identity = d.DefaultIdentity()
	}
	in := &Instance{
		d: d, comp: comp, index: index, identity: identity,
		boxIdentity: identity, boxOrigin: int32(d.origin),
		rl:      ratelog.New(d.log, LogInterval),
		readers: map[string]*Reader{},
		writers: map[*salxml.Topic]*Writer{},
		ready:   make(chan struct{}),
		closed:  make(chan struct{}),
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	d.instances[in] = struct{}{}
	return in, nil
}

// Component returns the component definition.
func (in *Instance) Component() *salxml.Component { return in.comp }

// Index returns the SAL index.
func (in *Instance) Index() int { return in.index }

// Identity returns the private_identity this instance writes.
func (in *Instance) Identity() string { return in.identity }

// Domain returns the Domain.
func (in *Instance) Domain() *Domain { return in.d }

// Origin is the private_origin this instance writes (the process id).
func (in *Instance) Origin() int { return in.d.origin }

func (in *Instance) own(t *salxml.Topic) error {
	if t == nil {
		return errors.New("topics: nil topic")
	}
	if t.Component != in.comp.Name || in.comp.Topic(t.SALName) != t {
		return fmt.Errorf("%w: %s is not a topic of %s", ErrWrongComponent, t, in.comp.Name)
	}
	return nil
}

// Reader adds a reader of topic t. Readers must be added before Start.
func (in *Instance) Reader(t *salxml.Topic, o ReaderOptions) (*Reader, error) {
	return in.reader(t, o, false)
}

// newOwnReader adds a reader of topic t to in that reads with a Kafka
// consumer of its own instead of the instance's shared one, so that its
// records are fetched without the instance's other partitions: each fetch
// of a consumer covers all its partitions, which costs the client and
// broker time on every wake. A Remote reads its acks this way. A reader
// that reads history uses the shared consumer anyway.
func newOwnReader(in *Instance, t *salxml.Topic, o ReaderOptions) (*Reader, error) {
	return in.reader(t, o, true)
}

func (in *Instance) reader(t *salxml.Topic, o ReaderOptions, own bool) (*Reader, error) {
	if err := in.own(t); err != nil {
		return nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.unstartedLocked(); err != nil {
		return nil, err
	}
	name := t.KafkaName(in.d.cfg.Subname)
	if r := in.readers[name]; r != nil {
		return nil, fmt.Errorf("topics: %s already has a reader in this instance", t)
	}
	r, err := newReader(in, t, o)
	if err != nil {
		return nil, err
	}
	r.own = own
	in.readers[name] = r
	in.order = append(in.order, r)
	return r, nil
}

// Writer returns the writer of topic t, making it on first use. Writers
// must be made before Start.
func (in *Instance) Writer(t *salxml.Topic) (*Writer, error) {
	if err := in.own(t); err != nil {
		return nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if w := in.writers[t]; w != nil {
		return w, nil
	}
	if err := in.unstartedLocked(); err != nil {
		return nil, err
	}
	w, err := newWriter(in, t)
	if err != nil {
		return nil, err
	}
	in.writers[t] = w
	return w, nil
}

// unstartedLocked says whether readers and writers can still be added:
// nil before Start, else ErrStarted or ErrClosed. in.mu is held.
func (in *Instance) unstartedLocked() error {
	switch in.state {
	case stateNew:
		return nil
	case stateClosed:
		return ErrClosed
	}
	return ErrStarted
}

// setStateLocked sets the state; in.mu is held.
func (in *Instance) setStateLocked(st int) {
	in.state = st
	in.wstate.Store(int32(st))
}

// writable says whether writers can write: nil once started, else
// ErrNotStarted or ErrClosed. It reads the state without in.mu, since
// every write asks.
func (in *Instance) writable() error {
	switch in.wstate.Load() {
	case stateStarted:
		return nil
	case stateClosed:
		return ErrClosed
	}
	return ErrNotStarted
}

// Ready is closed once every reader has delivered its history.
func (in *Instance) Ready() <-chan struct{} { return in.ready }

// Start creates missing topics, registers the schemas, positions every
// reader (history readers at the high watermark minus their depth, the
// others at the end) and returns once history is caught up, or when ctx
// is done.
func (in *Instance) Start(ctx context.Context) error {
	in.mu.Lock()
	switch in.state {
	case stateClosed:
		in.mu.Unlock()
		return ErrClosed
	case stateNew:
	default:
		in.mu.Unlock()
		return errors.New("topics: Start called twice")
	}
	in.setStateLocked(stateStarting)
	readers := append([]*Reader(nil), in.order...)
	var writers []*Writer
	for _, w := range in.writers {
		writers = append(writers, w)
	}
	in.mu.Unlock()

	if err := in.setup(ctx, readers, writers); err != nil {
		in.Close()
		return err
	}
	select {
	case <-in.ready:
		return nil
	case <-in.closed:
		return fmt.Errorf("topics: start %s: %w", in.comp.NameIndex(in.index), ErrClosed)
	case <-ctx.Done():
		in.Close()
		return fmt.Errorf("topics: start %s: waiting for history: %w", in.comp.NameIndex(in.index), ctx.Err())
	}
}

func (in *Instance) setup(ctx context.Context, readers []*Reader, writers []*Writer) error {
	rts := make([]*salxml.Topic, len(readers))
	for i, r := range readers {
		rts[i] = r.topic
	}
	all := slices.Clip(rts)
	for _, w := range writers {
		all = append(all, w.topic)
	}
	// The schemas are registered while the topics are created and their
	// watermarks listed: the two are independent and each is mostly a wait
	// on a server (the registry, the broker), so overlapping them cuts the
	// start-up of a Remote of many topics by a third or more.
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	registered := make(chan error, 1)
	go func() { registered <- in.registerAll(rctx, readers, writers) }()
	err := in.d.ensureTopics(ctx, all)
	var marks map[string]map[int32]kafka.Watermarks
	if err == nil && len(readers) > 0 {
		marks, err = in.d.watermarks(ctx, rts)
	}
	if err != nil {
		rcancel()
		<-registered
		return err
	}
	if err := <-registered; err != nil {
		return err
	}

	if len(readers) == 0 {
		in.mu.Lock()
		in.setStateLocked(stateStarted)
		in.mu.Unlock()
		close(in.ready)
		return nil
	}
	assign := map[string]map[int32]kafka.Start{}
	var own []map[string]map[int32]kafka.Start
	var ownNames []string
	indexedDepth := 0
	for _, r := range readers {
		depth := r.opts.MaxHistory
		if depth > 0 && in.comp.Indexed {
			if indexedDepth == 0 {
				var err error
				if indexedDepth, err = in.d.cfg.historyDepth(in.comp.Name); err != nil {
					return err
				}
			}
			depth = indexedDepth
		}
		parts := map[int32]kafka.Start{}
		for p, wm := range marks[r.kname] {
			start, last := historyStart(wm, depth)
			parts[p] = start
			if last >= 0 {
				if r.hist == nil {
					r.hist = &history{parts: map[int32]*partHistory{}}
				}
				r.hist.parts[p] = &partHistory{target: last, pos: map[int32]int{}}
			}
		}
		if r.hist != nil {
			in.pending++
		}
		if r.own && r.hist == nil {
			own = append(own, map[string]map[int32]kafka.Start{r.kname: parts})
			ownNames = append(ownNames, r.topic.SALName)
		} else {
			assign[r.kname] = parts
		}
	}
	var conss []*kafka.Consumer
	closeAll := func() {
		for _, c := range conss {
			c.Close()
		}
	}
	name := "consumer-" + in.comp.NameIndex(in.index)
	for i, a := range append([]map[string]map[int32]kafka.Start{assign}, own...) {
		if i == 0 && len(a) == 0 {
			continue // every reader has a consumer of its own
		}
		cname := name
		if i > 0 {
			cname = name + "-" + ownNames[i-1]
		}
		cons, err := kafka.NewConsumer(in.d.cfg.kafkaFor(cname), a)
		if err != nil {
			closeAll()
			return err
		}
		conss = append(conss, cons)
	}
	lctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	if in.state == stateClosed {
		in.mu.Unlock()
		cancel()
		closeAll()
		return ErrClosed
	}
	in.cons, in.cancel = conss, cancel
	in.setStateLocked(stateStarted)
	if in.pending == 0 {
		close(in.ready)
	}
	in.wg.Add(len(conss))
	in.mu.Unlock()
	// History readers are all on the first consumer, so only its loop
	// touches in.pending and in.ready.
	for _, cons := range conss {
		go in.loop(lctx, cons)
	}
	return nil
}

// historyStart is where a reader that wants depth records of history
// starts on a partition with watermarks wm, and the offset of the last of
// those records, which it must read before it is caught up: -1 when there
// is nothing to wait for (depth 0, or a partition with no records,
// whatever its offsets: a topic whose records were all deleted has a low
// watermark equal to its high one).
//
// The start is always an exact offset, never "the beginning": a partition
// whose offset the client must resolve first is left out of the fetch
// already in flight for the others, and its records would wait for that
// long-poll to end (up to the fetch wait, franz-go's 5 s).
func historyStart(wm kafka.Watermarks, depth int) (start kafka.Start, last int64) {
	if wm.High <= wm.Low || depth <= 0 {
		return kafka.Start{Offset: wm.High}, -1
	}
	return kafka.Start{Offset: max(wm.High-int64(depth), wm.Low)}, wm.High - 1
}

// registerAll registers the schema of every reader's and writer's topic,
// eight at a time, and sets their ids.
func (in *Instance) registerAll(ctx context.Context, readers []*Reader, writers []*Writer) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, r := range readers {
		g.Go(func() (err error) { r.id, err = in.d.register(gctx, r.topic); return })
	}
	for _, w := range writers {
		g.Go(func() (err error) { w.id, err = in.d.register(gctx, w.topic); return })
	}
	return g.Wait()
}

// Close stops the instance's goroutines and callbacks and disconnects its
// consumer. It is safe to call twice and from any goroutine.
func (in *Instance) Close() {
	in.mu.Lock()
	if in.state == stateClosed {
		in.mu.Unlock()
		return
	}
	in.setStateLocked(stateClosed)
	close(in.closed)
	cancel, cons := in.cancel, in.cons
	readers := append([]*Reader(nil), in.order...)
	in.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	for _, c := range cons {
		c.Close()
	}
	for _, r := range readers {
		r.close()
	}
	in.wg.Wait()
	in.d.mu.Lock()
	delete(in.d.instances, in)
	in.d.mu.Unlock()
}
