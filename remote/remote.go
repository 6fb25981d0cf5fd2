package remote

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/plumb"
	"github.com/lsst-sal/salgo/internal/ratelog"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// DefaultTimeout is the reference's default command timeout (1 hour),
// used when neither the call nor its ctx sets a shorter one.
const DefaultTimeout = time.Hour

// config holds a Remote's settings; the zero config is the reference's
// default Remote (every event and telemetry topic, commands, the newest
// sample of each event as history). Options change it.
type config struct {
	// ReadOnly makes a Remote that sends no commands (and reads no acks).
	ReadOnly bool
	// Include, if not empty, names the only events and telemetry topics
	// read (bare, SAL or attribute names; a bare name that is both an
	// event and a telemetry topic names both, as in ts_salobj); commands
	// are not filtered.
	Include []string
	// Exclude names events and telemetry topics not to read. Include and
	// Exclude cannot both be set.
	Exclude []string
	// NoEventHistory reads no history: event readers start with records
	// written after the Remote started (the reference's evt_max_history=0).
	// By default each event reader delivers the newest sample first (per
	// SAL index).
	NoEventHistory bool
	// QueueLen is the queue length of every event and telemetry reader
	// (default topics.DefaultQueueLen, 100).
	QueueLen int
	// Identity is the private_identity of commands (default: the bus's
	// default identity, user@fqdn or the identity of a CSC on the bus).
	Identity string
	// KeepOutOfOrder delivers events and telemetry older than the last
	// seen, which are dropped (and counted) by default.
	KeepOutOfOrder bool
	// Records are the record types whose topics' readers decode typed
	// records (WithRecords), by SAL name.
	Records map[string]*topics.RecordType
}

// record returns the record type given for topic salName of component
// comp, or nil.
func (c *config) record(comp, salName string) *topics.RecordType {
	if t := c.Records[salName]; t != nil && t.Component == comp {
		return t
	}
	return nil
}

// Remote is the client side of one component instance.
type Remote struct {
	in    *topics.Instance
	comp  *salxml.Component
	index int
	evts  map[string]*topics.Reader
	tels  map[string]*topics.Reader
	cmds  map[string]*topics.Writer
	ack   *topics.Reader
	rl    *ratelog.Limiter // the no-heartbeat hint (heartbeat.go)

	mu      sync.Mutex
	seq     *seqNums
	pending map[int32]*Future
	closed  bool
	unreg   func() // leaves the Domain's list of what its Close closes
}

// New makes a Remote of the named component and SAL index (0 for a
// non-indexed component; for an indexed one, 0 reads every index). Call
// Start before use.
func New(d *topics.Domain, name string, index int, opts ...Option) (*Remote, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.Include) > 0 && len(cfg.Exclude) > 0 {
		return nil, errors.New("remote: include and exclude lists cannot both be given")
	}
	comp, err := d.Component(name)
	if err != nil {
		return nil, err
	}
	in, err := d.NewInstance(comp, index, cfg.Identity)
	if err != nil {
		return nil, err
	}
	r := &Remote{
		in: in, comp: comp, index: index,
		evts: map[string]*topics.Reader{}, tels: map[string]*topics.Reader{}, cmds: map[string]*topics.Writer{},
		pending: map[int32]*Future{},
		rl:      ratelog.New(d.Logger(), topics.LogInterval),
	}
	if err := r.build(cfg); err != nil {
		in.Close()
		return nil, err
	}
	if r.unreg, err = onClose(d, plumb.RankRemote, r.Close); err != nil {
		in.Close()
		return nil, err
	}
	return r, nil
}

func (r *Remote) build(cfg config) error {
	var include, exclude []string
	for _, list := range []struct {
		names []string
		to    *[]string
	}{{cfg.Include, &include}, {cfg.Exclude, &exclude}} {
		for _, n := range list.names {
			// A bare name may be an event and a telemetry topic at once
			// (Test's scalars): it names both, as in ts_salobj.
			found := false
			for _, k := range []salxml.Kind{salxml.Event, salxml.Telemetry} {
				if t, err := r.comp.Lookup(k, n); err == nil {
					*list.to = append(*list.to, t.SALName)
					found = true
				}
			}
			if !found {
				return fmt.Errorf("remote: %s has no event or telemetry topic %q", r.comp.Name, n)
			}
		}
	}
	wanted := func(t *salxml.Topic) bool {
		if len(include) > 0 {
			return slices.Contains(include, t.SALName)
		}
		return !slices.Contains(exclude, t.SALName)
	}
	ro := topics.ReaderOptions{QueueLen: cfg.QueueLen, KeepOutOfOrder: cfg.KeepOutOfOrder}
	for _, t := range r.comp.Topics {
		var err error
		switch t.Kind {
		case salxml.Event:
			if wanted(t) {
				o := ro
				if !cfg.NoEventHistory {
					o.MaxHistory = 1
				}
				o.Record = cfg.record(r.comp.Name, t.SALName)
				r.evts[t.Name()], err = r.in.Reader(t, o)
			}
		case salxml.Telemetry:
			if wanted(t) {
				o := ro
				o.Record = cfg.record(r.comp.Name, t.SALName)
				r.tels[t.Name()], err = r.in.Reader(t, o)
			}
		case salxml.Command:
			if !cfg.ReadOnly {
				r.cmds[t.Name()], err = r.in.Writer(t)
			}
		}
		if err != nil {
			return err
		}
	}
	if !cfg.ReadOnly && len(r.cmds) > 0 {
		var err error
		if r.ack, err = newOwnReader(r.in, r.comp.Ack(), topics.ReaderOptions{QueueLen: 1000}); err != nil {
			return err
		}
		// The acks have a consumer of their own, so that each ack is
		// fetched without the component's event and telemetry partitions
		// (a fetch covers all of a consumer's partitions; on the embedded
		// broker this is about a fifth of a command's round trip).
		// Acks are matched to their commands on the poll goroutine:
		// dispatch never blocks, and a queue and callback goroutine
		// in between would add a goroutine handoff to every command.
		if err := setInline(r.ack, r.dispatch); err != nil {
			return err
		}
		r.seq = newSeqNums(r.comp.CommandNames(), rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
	}
	return nil
}

// Start creates missing topics, registers schemas and returns once every
// event reader has delivered its history.
func (r *Remote) Start(ctx context.Context) error {
	if err := r.in.Start(ctx); err != nil {
		return fmt.Errorf("remote: start %s: %w", r.Name(), err)
	}
	return nil
}

// Close stops the Remote. Commands still in flight end at once: their
// Done closes and their Result (and any Wait or Next) returns an error
// matching ErrClosed. It is safe to call twice and concurrently.
func (r *Remote) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	pend := r.pending
	r.pending = map[int32]*Future{}
	r.mu.Unlock()
	r.unreg()
	for _, f := range pend {
		f.abandon(fmt.Errorf("remote: %s command %s: %w", r.Name(), f.name, ErrClosed))
	}
	r.in.Close()
}

// Name returns "Component" or "Component:index".
func (r *Remote) Name() string { return r.comp.NameIndex(r.index) }

// Component returns the component definition.
func (r *Remote) Component() *salxml.Component { return r.comp }

// Index returns the SAL index.
func (r *Remote) Index() int { return r.index }

// Identity returns the private_identity written in commands.
func (r *Remote) Identity() string { return r.in.Identity() }

// Event returns the reader of an event, named by its bare name
// ("summaryState"), SAL name (logevent_summaryState) or attribute name
// (evt_summaryState). An unknown name, or an event this Remote does not
// read (see WithInclude, WithExclude), is an error naming the
// component and the close matches.
func (r *Remote) Event(name string) (*topics.Reader, error) {
	return r.reader(salxml.Event, name, r.evts)
}

// MustEvent is Event for names known to be right: it panics with Event's
// error.
func (r *Remote) MustEvent(name string) *topics.Reader { return must(r.Event(name)) }

// Telemetry returns the reader of a telemetry topic, named by its name
// ("forceActuatorData") or attribute name (tel_forceActuatorData). Errors
// as Event's.
func (r *Remote) Telemetry(name string) (*topics.Reader, error) {
	return r.reader(salxml.Telemetry, name, r.tels)
}

// MustTelemetry is Telemetry for names known to be right: it panics with
// Telemetry's error.
func (r *Remote) MustTelemetry(name string) *topics.Reader { return must(r.Telemetry(name)) }

func (r *Remote) reader(k salxml.Kind, name string, m map[string]*topics.Reader) (*topics.Reader, error) {
	t, err := r.comp.Lookup(k, name)
	if err != nil {
		return nil, &lookupError{sentinel: ErrNoSuchTopic, err: err}
	}
	rd := m[t.Name()]
	if rd == nil {
		return nil, fmt.Errorf("%w: the %s Remote does not read %s %s (left out by its include or exclude list)", ErrNoSuchTopic, r.Name(), k, t.Name())
	}
	return rd, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// EventNames returns the bare names of the events read, sorted.
func (r *Remote) EventNames() []string { return sortedKeys(r.evts) }

// TelemetryNames returns the names of the telemetry topics read, sorted.
func (r *Remote) TelemetryNames() []string { return sortedKeys(r.tels) }

// CommandNames returns the bare command names, sorted (empty if read-only).
func (r *Remote) CommandNames() []string { return sortedKeys(r.cmds) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// dispatch runs on the instance's poll goroutine: it hands each ack meant
// for this Remote to the waiting command without blocking.
func (r *Remote) dispatch(rec map[string]any) {
	a := topics.AckFromRecord(rec)
	if a.Identity != r.in.Identity() || a.Origin != int32(r.in.Origin()) {
		return
	}
	r.mu.Lock()
	f := r.pending[a.SeqNum]
	r.mu.Unlock()
	if f != nil {
		f.deliver(a) // a final ack takes f out of pending (endLocked)
	}
}

// forget takes f out of the pending table, if it is still there.
func (r *Remote) forget(f *Future) {
	r.mu.Lock()
	if r.pending[f.seq] == f {
		delete(r.pending, f.seq)
	}
	r.mu.Unlock()
}

// Pending returns the number of commands in flight: sent, and not yet
// ended by their final ack, their timeout, a failed write or Close.
func (r *Remote) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}
