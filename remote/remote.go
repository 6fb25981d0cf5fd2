package remote

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/bus"
	"github.com/lsst-sal/salgo/internal/ratelog"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// DefaultTimeout is the reference's default command timeout (1 hour),
// used when neither the call nor its ctx sets a shorter one.
const DefaultTimeout = time.Hour

// Option configures a Remote.
type Option interface{ apply(*config) }

type config struct {
	readOnly       bool
	include        []string
	exclude        []string
	history        int
	queueLen       int
	identity       string
	keepOutOfOrder bool
}

type optFunc func(*config)

func (f optFunc) apply(c *config) { f(c) }

// ReadOnly makes a Remote that sends no commands.
func ReadOnly() Option { return optFunc(func(c *config) { c.readOnly = true }) }

// Include reads only the named events and telemetry (bare names, e.g.
// "summaryState", "forceActuatorData"); commands are not filtered.
func Include(names ...string) Option {
	return optFunc(func(c *config) { c.include = append(c.include, names...) })
}

// Exclude reads every event and telemetry topic except the named ones.
func Exclude(names ...string) Option {
	return optFunc(func(c *config) { c.exclude = append(c.exclude, names...) })
}

// EventHistory sets how many historical samples each event reader delivers
// at start: 0 or 1 (the default: the newest, per SAL index).
func EventHistory(n int) Option { return optFunc(func(c *config) { c.history = n }) }

// QueueLen sets the queue length of every reader, overriding the default 100.
func QueueLen(n int) Option { return optFunc(func(c *config) { c.queueLen = n }) }

// Identity sets the private_identity of commands, overriding user@host.
func Identity(id string) Option { return optFunc(func(c *config) { c.identity = id }) }

// KeepOutOfOrder delivers events and telemetry older than the last seen,
// which are dropped (and counted) by default.
func KeepOutOfOrder() Option { return optFunc(func(c *config) { c.keepOutOfOrder = true }) }

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
	seq     *bus.SeqNums
	pending map[int32]*Future
	closed  bool
}

// New makes a Remote of the named component and SAL index (0 for a
// non-indexed component; for an indexed one, 0 reads every index). Call
// Start before use.
func New(d *topics.Domain, name string, index int, opts ...Option) (*Remote, error) {
	cfg := config{history: 1}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if len(cfg.include) > 0 && len(cfg.exclude) > 0 {
		return nil, errors.New("remote: Include and Exclude cannot both be given")
	}
	if cfg.history < 0 || cfg.history > 1 {
		return nil, fmt.Errorf("remote: EventHistory(%d): must be 0 or 1", cfg.history)
	}
	comp, err := d.Component(name)
	if err != nil {
		return nil, err
	}
	in, err := d.NewInstance(comp, index, cfg.identity)
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
	return r, nil
}

func (r *Remote) build(cfg config) error {
	for _, n := range append(slices.Clone(cfg.include), cfg.exclude...) {
		if r.comp.Event(n) == nil && r.comp.Telemetry(n) == nil {
			return fmt.Errorf("remote: %s has no event or telemetry topic %q", r.comp.Name, n)
		}
	}
	wanted := func(n string) bool {
		if len(cfg.include) > 0 {
			return slices.Contains(cfg.include, n)
		}
		return !slices.Contains(cfg.exclude, n)
	}
	ro := topics.ReaderOptions{QueueLen: cfg.queueLen, KeepOutOfOrder: cfg.keepOutOfOrder}
	for _, t := range r.comp.Topics {
		var err error
		switch t.Kind {
		case salxml.Event:
			if wanted(t.Name()) {
				o := ro
				o.MaxHistory = cfg.history
				r.evts[t.Name()], err = r.in.Reader(t, o)
			}
		case salxml.Telemetry:
			if wanted(t.Name()) {
				r.tels[t.Name()], err = r.in.Reader(t, ro)
			}
		case salxml.Command:
			if !cfg.readOnly {
				r.cmds[t.Name()], err = r.in.Writer(t)
			}
		}
		if err != nil {
			return err
		}
	}
	if !cfg.readOnly && len(r.cmds) > 0 {
		var err error
		if r.ack, err = bus.NewOwnReader(r.in, r.comp.Ack(), topics.ReaderOptions{QueueLen: 1000}); err != nil {
			return err
		}
		// The acks have a consumer of their own, so that each ack is
		// fetched without the component's event and telemetry partitions
		// (a fetch covers all of a consumer's partitions; on the embedded
		// broker this is about a fifth of a command's round trip).
		// Acks are matched to their commands on the poll goroutine:
		// dispatch never blocks, and a queue and callback goroutine
		// in between would add a goroutine handoff to every command.
		if err := bus.SetInline(r.ack, r.dispatch); err != nil {
			return err
		}
		r.seq = bus.NewSeqNums(r.comp.CommandNames(), rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
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

// Event returns the reader of an event by bare name ("summaryState"), or nil.
func (r *Remote) Event(name string) *topics.Reader { return r.evts[name] }

// Telemetry returns the reader of a telemetry topic, or nil.
func (r *Remote) Telemetry(name string) *topics.Reader { return r.tels[name] }

// Events returns the bare names of the events read, sorted.
func (r *Remote) Events() []string { return sortedKeys(r.evts) }

// TelemetryNames returns the names of the telemetry topics read, sorted.
func (r *Remote) TelemetryNames() []string { return sortedKeys(r.tels) }

// Commands returns the bare command names, sorted (empty if read-only).
func (r *Remote) Commands() []string { return sortedKeys(r.cmds) }

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
	a := bus.AckFromRecord(rec)
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
