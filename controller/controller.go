package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lsst-sal/salgo/internal/plumb"
	"github.com/lsst-sal/salgo/internal/ratelog"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Handler runs one command. Its outcome becomes the final ack: nil gives
// CMD_COMPLETE "Done"; an error gives CMD_FAILED, error 1, "Failed:
// <error>"; a context cancellation (the Controller closing) gives
// CMD_ABORTED "Aborted"; context.DeadlineExceeded gives CMD_TIMEOUT
// "Timeout"; an *AckResult gives exactly that ack.
type Handler interface {
	Handle(ctx context.Context, cmd *Command) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, cmd *Command) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, cmd *Command) error { return f(ctx, cmd) }

// AckResult is a handler outcome that chooses the final ack itself.
type AckResult struct {
	Code      topics.AckCode
	ErrorCode int32
	Result    string
}

// Error returns the ack code, error code and result text, so that an
// AckResult can be returned as a handler's error.
func (a *AckResult) Error() string {
	return fmt.Sprintf("%s error=%d: %s", a.Code, a.ErrorCode, a.Result)
}

// config holds a Controller's settings; the zero config is the
// reference's Controller (every command read, each topic's commands one
// at a time, a handler required for each). Options change it.
type config struct {
	// AllowMissing lets commands without a handler answer CMD_FAILED
	// "This command is not supported" instead of failing Start.
	AllowMissing bool
	// Concurrent names commands of which several may run at once (by
	// default the commands of one topic run one at a time).
	Concurrent []string
	// WriteOnly makes a Controller that reads no commands (and answers
	// none, setLogLevel included); it writes only what its program writes,
	// not even logLevel at start.
	WriteOnly bool
	// Identity is the private_identity written (default "Name[:index]").
	Identity string
	// QueueLen bounds each command topic's queue (default and minimum
	// 1000); when full, the oldest command is dropped unanswered and
	// counted in Stats.Overflow.
	QueueLen int
	// MaxConcurrent bounds how many handlers of Concurrent commands run
	// at once (default DefaultMaxConcurrent, 100): a command beyond it is
	// refused at once, acked CMD_FAILED "Failed: too many commands running
	// at once (limit N); try again later", and counted in Stats.Rejected,
	// so that a flood of commands cannot grow the process without bound.
	MaxConcurrent int
}

// DefaultMaxConcurrent is WithMaxConcurrent's default.
const DefaultMaxConcurrent = 100

// Command is one received command.
type Command struct {
	// Name is the bare command name, e.g. "setScalars".
	Name string
	// Data is the command record (canonical values); do not modify it.
	Data     map[string]any
	SeqNum   int32
	Identity string
	Origin   int32
	SALIndex int32

	c *Controller
	// acked, if set, runs once the final ack is written (or failed to be).
	acked func()
}

// InProgress sends CMD_INPROGRESS with the estimated remaining duration;
// the Remote extends its deadline by it. A command a CSC runs on its own
// during Start (a transition to the initial state) has no sender to tell:
// there InProgress writes nothing and returns nil (the reference writes an
// ack of private_seqNum 0 that no Remote can match).
func (cmd *Command) InProgress(ctx context.Context, timeout time.Duration, result string) error {
	return cmd.Ack(ctx, topics.Ack{Code: topics.CmdInProgress, Result: result, Timeout: timeout})
}

// Ack sends an intermediate acknowledgement of any code (nothing for a
// command the CSC runs on its own, as InProgress).
func (cmd *Command) Ack(ctx context.Context, a topics.Ack) error {
	if cmd.SeqNum == 0 {
		return nil
	}
	return cmd.c.ack(ctx, cmd, a)
}

// Stats counts a Controller's commands.
type Stats struct {
	Received   uint64 // commands read
	Completed  uint64 // acked CMD_COMPLETE
	Failed     uint64 // acked with a failure code
	Rejected   uint64 // answered or dropped before a handler ran (bad seqNum, bad data, no handler)
	Duplicates uint64 // dropped: the same command (origin, identity, seqNum) seen again
	AckErrors  uint64 // acks that could not be written
	InProgress uint64
	// LongStrings counts commands handled although strings in them are
	// longer than their IDL_Size, as ts_salobj handles them.
	LongStrings uint64
	// LogDropped counts log records not written as logMessage: because
	// LogQueueLen records were already waiting (the broker away), or
	// because their write failed or was not confirmed within its bound
	// (10 s), or was cut short when the Controller closed; also records
	// logged before Start beyond the 10 kept, and after Close.
	LogDropped uint64
	// Overflow counts commands dropped unanswered because their command
	// topic's queue (Config.QueueLen) was full: the oldest waiting
	// command is dropped, and its sender's Remote times out.
	Overflow uint64
}

// Controller is the server side of one component instance.
type Controller struct {
	in    *topics.Instance
	comp  *salxml.Component
	index int
	cfg   config
	log   *slog.Logger

	handlers map[string]Handler
	readers  map[string]*topics.Reader
	ackW     *topics.Writer
	evts     map[string]*topics.Writer
	tels     map[string]*topics.Writer
	cmdtype  map[string]int32
	ackWait  ackDeadlines

	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup
	rl      *ratelog.Limiter
	seen    dedup
	logs    *logSink
	logger  *slog.Logger

	mu        sync.Mutex
	started   bool
	closed    bool
	closing   chan struct{} // closed when Close starts
	aborted   chan struct{} // closed when the handlers are done (abort)
	closeOnce sync.Once
	finished  chan struct{} // closed when Close has finished
	unreg     func()        // leaves the Domain's list of what its Close closes
	unflush   func()        // leaves the Domain's list of what its Flush waits for

	concurrent atomic.Int64 // handlers of Concurrent commands running

	stats struct {
		received, completed, failed, rejected, duplicates, ackErrors, inProgress, longStrings atomic.Uint64
	}
}

// New makes a Controller of the named component and SAL index. Add
// handlers with Handle, then Start.
func New(d *topics.Domain, name string, index int, opts ...Option) (*Controller, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	return newController(d, name, index, cfg)
}

// newController is New with its settings made.
func newController(d *topics.Domain, name string, index int, cfg config) (*Controller, error) {
	comp, err := d.Component(name)
	if err != nil {
		return nil, err
	}
	if cfg.Identity == "" {
		cfg.Identity = comp.NameIndex(index)
	}
	in, err := d.NewInstance(comp, index, cfg.Identity)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Controller{
		in: in, comp: comp, index: index, cfg: cfg, log: d.Logger(),
		handlers: map[string]Handler{}, readers: map[string]*topics.Reader{},
		evts: map[string]*topics.Writer{}, tels: map[string]*topics.Writer{},
		cmdtype: map[string]int32{},
		ctx:     ctx, cancel: cancel,
		rl:      ratelog.New(d.Logger(), topics.LogInterval),
		seen:    newDedup(dedupWindow),
		closing: make(chan struct{}), aborted: make(chan struct{}), finished: make(chan struct{}),
	}
	c.logs = newLogSink(c)
	c.logger = slog.New(&logHandler{sink: c.logs, next: d.Logger().Handler()})
	for i, n := range cfg.Concurrent {
		t, err := comp.Lookup(salxml.Command, n)
		if err != nil {
			in.Close()
			cancel()
			return nil, fmt.Errorf("controller: concurrent commands: %w", err)
		}
		cfg.Concurrent[i] = t.Name()
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	c.cfg = cfg
	names := comp.SALTopicNames()
	for i, n := range names {
		c.cmdtype[n] = int32(i)
	}
	for _, t := range comp.Topics {
		switch t.Kind {
		case salxml.Event:
			c.evts[t.Name()], err = in.Writer(t)
		case salxml.Telemetry:
			c.tels[t.Name()], err = in.Writer(t)
		case salxml.Command:
			if !cfg.WriteOnly {
				c.readers[t.Name()], err = in.Reader(t, topics.ReaderOptions{QueueLen: max(cfg.QueueLen, 1000)})
			}
		case salxml.Ack:
			if !cfg.WriteOnly {
				c.ackW, err = in.Writer(t)
			}
		}
		if err != nil {
			in.Close()
			cancel()
			return nil, err
		}
	}
	if c.readers["setLogLevel"] != nil {
		c.handlers["setLogLevel"] = HandlerFunc(c.setLogLevel)
	}
	if c.unreg, err = onClose(d, plumb.RankController, c.Close); err != nil {
		in.Close()
		cancel()
		return nil, err
	}
	c.unflush = onFlush(d, c.logs.drain)
	return c, nil
}

// Name returns "Component" or "Component:index".
func (c *Controller) Name() string { return c.comp.NameIndex(c.index) }

// Component returns the component definition.
func (c *Controller) Component() *salxml.Component { return c.comp }

// Index returns the SAL index.
func (c *Controller) Index() int { return c.index }

// Identity returns the private_identity written.
func (c *Controller) Identity() string { return c.in.Identity() }

// Handle sets the handler of a command (bare, SAL or attribute name). It
// must be called before Start.
func (c *Controller) Handle(name string, h Handler) error {
	t, err := c.comp.Lookup(salxml.Command, name)
	if err != nil {
		return fmt.Errorf("controller: handler: %w", err)
	}
	if h == nil {
		return fmt.Errorf("controller: nil handler for %s", t.Name())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return fmt.Errorf("controller: handler for %s set after Start", t.Name())
	}
	c.handlers[t.Name()] = h
	return nil
}

// RecordHandler adapts fn, a handler that takes the command's data as a
// typed record (a struct cmd/salgen generated, *R), to HandleFunc: the
// data is read into a new record with FromMap, whose error is the
// handler's error. The Handle methods of generated CSCs and Controllers
// use it.
func RecordHandler[R any, P interface {
	*R
	topics.Record
}](fn func(ctx context.Context, cmd *Command, data P) error) func(ctx context.Context, cmd *Command) error {
	return func(ctx context.Context, cmd *Command) error {
		data := P(new(R))
		if err := data.FromMap(cmd.Data); err != nil {
			return err
		}
		return fn(ctx, cmd, data)
	}
}

// HandleFunc sets a function as the handler of a command.
func (c *Controller) HandleFunc(name string, f func(ctx context.Context, cmd *Command) error) error {
	if f == nil {
		return c.Handle(name, nil)
	}
	return c.Handle(name, HandlerFunc(f))
}

// Event returns the writer of an event, named by its bare name
// ("summaryState"), SAL name or attribute name (evt_summaryState). An
// unknown name is an error naming the component and the close matches.
func (c *Controller) Event(name string) (*topics.Writer, error) {
	return c.writer(salxml.Event, name, c.evts)
}

// MustEvent is Event for names known to be right: it panics with Event's
// error.
func (c *Controller) MustEvent(name string) *topics.Writer { return must(c.Event(name)) }

// Telemetry returns the writer of a telemetry topic, named by its name or
// attribute name (tel_scalars). Errors as Event's.
func (c *Controller) Telemetry(name string) (*topics.Writer, error) {
	return c.writer(salxml.Telemetry, name, c.tels)
}

// MustTelemetry is Telemetry for names known to be right: it panics with
// Telemetry's error.
func (c *Controller) MustTelemetry(name string) *topics.Writer { return must(c.Telemetry(name)) }

// event returns the writer of an event the code knows exists, or nil.
func (c *Controller) event(name string) *topics.Writer { return c.evts[name] }

func (c *Controller) writer(k salxml.Kind, name string, m map[string]*topics.Writer) (*topics.Writer, error) {
	t, err := c.comp.Lookup(k, name)
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	return m[t.Name()], nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Stats returns the command counters.
func (c *Controller) Stats() Stats {
	return Stats{
		Received: c.stats.received.Load(), Completed: c.stats.completed.Load(), Failed: c.stats.failed.Load(),
		Rejected: c.stats.rejected.Load(), Duplicates: c.stats.duplicates.Load(),
		AckErrors: c.stats.ackErrors.Load(), InProgress: c.stats.inProgress.Load(),
		LongStrings: c.stats.longStrings.Load(),
		LogDropped:  c.logs.dropped.Load(),
		Overflow:    c.overflow(),
	}
}

// overflow sums the commands the command readers dropped from a full
// queue.
func (c *Controller) overflow() (n uint64) {
	for _, r := range c.readers {
		n += r.Stats().Overflow
	}
	return n
}

// Start checks that every command has a handler (unless AllowMissing),
// starts reading commands and returns once the topics are ready.
func (c *Controller) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("controller: start %s: %w", c.Name(), topics.ErrClosed)
	}
	if c.started {
		c.mu.Unlock()
		return errors.New("controller: Start called twice")
	}
	var missing []string
	for name := range c.readers {
		if c.handlers[name] == nil {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 && !c.cfg.AllowMissing {
		c.mu.Unlock()
		return fmt.Errorf("controller: %s: no handler for command(s) %v (add them, or allow missing ones with controller.WithAllowMissing)", c.Name(), missing)
	}
	c.started = true
	c.mu.Unlock()
	for name, r := range c.readers {
		recv := func(rec map[string]any) { c.receive(name, rec) }
		if slices.Contains(c.cfg.Concurrent, name) {
			// receive never blocks for a concurrent command (its handler
			// runs on a goroutine of its own and acks are queued without
			// waiting), so it runs on the poll goroutine: one goroutine
			// handoff per command instead of two.
			if err := setInline(r, recv); err != nil {
				return fmt.Errorf("controller: start %s: %w", c.Name(), err)
			}
		} else {
			r.SetCallback(recv)
		}
	}
	if err := c.in.Start(ctx); err != nil {
		return fmt.Errorf("controller: start %s: %w", c.Name(), err)
	}
	c.logs.start()
	if c.cfg.WriteOnly {
		return nil // it writes what its program writes, nothing of its own
	}
	if err := c.writeLogLevel(ctx); err != nil {
		return fmt.Errorf("controller: start %s: write logLevel: %w", c.Name(), err)
	}
	return nil
}

// receive runs on the command topic's reader goroutine, or on the poll
// goroutine for concurrent commands: it must not block.
func (c *Controller) receive(name string, rec map[string]any) {
	c.stats.received.Add(1)
	cmd := &Command{Name: name, Data: rec, c: c}
	cmd.SeqNum, _ = rec["private_seqNum"].(int32)
	cmd.Identity, _ = rec["private_identity"].(string)
	cmd.Origin, _ = rec["private_origin"].(int32)
	cmd.SALIndex, _ = rec["salIndex"].(int32)
	if cmd.SeqNum <= 0 {
		// The reference's controller dies on this; we log it and go on.
		// No ack: the sender could not match one.
		c.stats.rejected.Add(1)
		c.rl.Log(slog.LevelWarn, "seqnum:"+name, "controller: command with private_seqNum <= 0 ignored", "controller", c.Name(), "command", name, "seqNum", cmd.SeqNum, "identity", cmd.Identity, "origin", cmd.Origin)
		return
	}
	if !c.seen.add(cmdKey{origin: cmd.Origin, identity: cmd.Identity, seq: cmd.SeqNum}) {
		// The same command record again (a producer retry that reached
		// the log twice): its handler ran, or is running, already.
		c.stats.duplicates.Add(1)
		c.rl.Log(slog.LevelWarn, "dup:"+name, "controller: duplicate command dropped", "controller", c.Name(), "command", name, "seqNum", cmd.SeqNum, "identity", cmd.Identity, "origin", cmd.Origin)
		return
	}
	if rep := validate.For(c.comp.Command(name)).Check(rec); !c.admit(cmd, rep) {
		c.stats.rejected.Add(1)
		c.final(cmd, topics.Ack{Code: topics.CmdFailed, Error: 1, Result: "Failed: invalid command data: " + rep.String()})
		return
	}
	h := c.handlers[name]
	if h == nil {
		c.stats.rejected.Add(1)
		c.final(cmd, topics.Ack{Code: topics.CmdFailed, Error: 1, Result: "Failed: This command is not supported"})
		return
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.final(cmd, topics.Ack{Code: topics.CmdAborted, Error: 1, Result: "Aborted"})
		return
	}
	c.running.Add(1)
	c.mu.Unlock()
	if slices.Contains(c.cfg.Concurrent, name) {
		if c.concurrent.Add(1) > int64(c.cfg.MaxConcurrent) {
			c.concurrent.Add(-1)
			c.running.Done()
			c.stats.rejected.Add(1)
			c.final(cmd, topics.Ack{Code: topics.CmdFailed, Error: 1,
				Result: fmt.Sprintf("Failed: too many commands running at once (limit %d); try again later", c.cfg.MaxConcurrent)})
			return
		}
		go func() {
			defer c.concurrent.Add(-1)
			c.run(h, cmd)
		}()
	} else {
		c.run(h, cmd)
	}
}

func (c *Controller) run(h Handler, cmd *Command) {
	defer c.running.Done()
	stack, err := c.call(h, cmd)
	var res *AckResult
	var a topics.Ack
	logIt := false
	switch {
	case err == nil:
		a = topics.Ack{Code: topics.CmdComplete, Result: "Done"}
	case errors.As(err, &res):
		a = topics.Ack{Code: res.Code, Error: res.ErrorCode, Result: res.Result}
	case errors.Is(err, context.Canceled):
		a = topics.Ack{Code: topics.CmdAborted, Error: 1, Result: "Aborted"}
	case errors.Is(err, context.DeadlineExceeded):
		a = topics.Ack{Code: topics.CmdTimeout, Error: 1, Result: "Timeout"}
	default:
		a = topics.Ack{Code: topics.CmdFailed, Error: 1, Result: "Failed: " + err.Error()}
		logIt = true
	}
	c.final(cmd, a)
	if logIt {
		c.logFailure(cmd, err, stack) // after the ack, as the reference
	}
}

// runLocal runs a command that no Remote sent (a CSC's transitions to its
// initial state) as run runs a received one: the Controller's context,
// counted among the running handlers (Close aborts it and waits), a panic
// an error; cmd.acked, if set, runs once it returns, as after an ack.
func (c *Controller) runLocal(h Handler, cmd *Command) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("controller: %s: %w", cmd.Name, topics.ErrClosed)
	}
	c.running.Add(1)
	c.mu.Unlock()
	defer c.running.Done()
	stack, err := c.call(h, cmd)
	if err != nil && stack != "" {
		err = fmt.Errorf("%w\n%s", err, stack)
	}
	if cmd.acked != nil {
		cmd.acked()
	}
	return err
}

// call runs h; a panic becomes an error, with the stack where it happened.
func (c *Controller) call(h Handler, cmd *Command) (stack string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err, stack = fmt.Errorf("handler panicked: %v", p), string(debug.Stack())
		}
	}()
	return "", h.Handle(c.ctx, cmd)
}

func (c *Controller) final(cmd *Command, a topics.Ack) {
	if a.Code == topics.CmdComplete {
		c.stats.completed.Add(1)
	} else {
		c.stats.failed.Add(1)
	}
	// The final ack is queued, not waited for, as the reference's
	// controller does (its writes return once produce() queued them): the
	// next command of the topic need not wait for the broker, and no
	// goroutine wakes up just to learn that the ack was written. ctx
	// bounds waiting for buffer space and for the topic's metadata, so it
	// must live until the record is done (franz-go fails a record waiting
	// for an unknown topic when the ctx given to Produce ends).
	ctx := c.ackWait.get()
	failed := func(err error) {
		c.stats.ackErrors.Add(1)
		c.rl.Log(slog.LevelWarn, "ack:"+cmd.Name, "controller: could not acknowledge command", "controller", c.Name(), "command", cmd.Name, "seqNum", cmd.SeqNum, "err", err)
	}
	done := func(err error) {
		if err != nil {
			failed(err)
		}
		if cmd.acked != nil {
			cmd.acked()
		}
	}
	rec, err := c.ackRecord(cmd, a)
	if err == nil {
		err = writeSeqAsync(ctx, c.ackW, rec, cmd.SeqNum, func(_ topics.WriteResult, err error) { done(err) })
	}
	if err != nil {
		done(err)
	}
}

// ackWait bounds a final ack's wait for the producer (buffer space,
// metadata).
const ackWait = 30 * time.Second

// ackDeadlines hands out the contexts that bound final acks' waits: one
// per second, shared by every ack of that second, so that each ack waits
// between ackWait and ackWait plus a second. A context and timer of each
// ack's own were a few microseconds of every command's round trip. A
// context is never cancelled early: its deadline releases it.
type ackDeadlines struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc // kept so the context's resources are owned; its timer calls it
	made   time.Time
}

func (a *ackDeadlines) get() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := time.Now(); a.ctx == nil || t.Sub(a.made) >= time.Second {
		a.ctx, a.cancel = context.WithDeadline(context.Background(), t.Add(ackWait+time.Second))
		a.made = t
	}
	return a.ctx
}

// ack writes one ackcmd record for cmd, as the reference does, and waits
// for the broker.
func (c *Controller) ack(ctx context.Context, cmd *Command, a topics.Ack) error {
	rec, err := c.ackRecord(cmd, a)
	if err != nil {
		return err
	}
	if _, err := writeSeq(ctx, c.ackW, rec, cmd.SeqNum); err != nil {
		c.stats.ackErrors.Add(1)
		return err
	}
	return nil
}

// ackRecord is the ackcmd record answering cmd with a.
func (c *Controller) ackRecord(cmd *Command, a topics.Ack) (map[string]any, error) {
	if c.ackW == nil {
		return nil, errors.New("controller: write-only controllers send no acks")
	}
	if a.Code == topics.CmdInProgress {
		c.stats.inProgress.Add(1)
	}
	a.Identity, a.Origin = cmd.Identity, cmd.Origin
	a.CmdType = c.cmdtype["command_"+cmd.Name]
	a.Result = capText(a.Result)
	return topics.AckFields(&a), nil
}

// Close cancels running handlers (they are acknowledged CMD_ABORTED),
// waits for them, and stops the Controller. It is safe to call twice and
// concurrently: every call returns once the Controller is closed. It must
// not be called from a command handler, since it waits for that handler:
// a handler that wants its Controller gone runs `go c.Close()`.
func (c *Controller) Close() {
	c.abort()
	c.closeOnce.Do(func() {
		c.logs.stop()
		c.in.Close()
		if c.unreg != nil {
			c.unreg()
		}
		if c.unflush != nil {
			c.unflush()
		}
		close(c.finished)
	})
	<-c.finished
}

// abort is the first half of Close: commands are refused from now on
// (acked CMD_ABORTED), the handlers' context is cancelled, and abort
// waits for the running handlers (at most handlerGrace); the topics stay
// open, so that a CSC can still write its last events. Safe to call twice
// and concurrently: every call returns once the handlers are done.
func (c *Controller) abort() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.aborted
		return
	}
	c.closed = true
	close(c.closing)
	c.mu.Unlock()
	defer close(c.aborted)
	c.cancel()
	done := make(chan struct{})
	go func() { c.running.Wait(); close(done) }()
	t := time.NewTimer(handlerGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.log.Error("controller: handlers still running 30 s after Close", "controller", c.Name())
	}
}

// handlerGrace is how long Close waits for handlers to return once their
// context is cancelled.
const handlerGrace = 30 * time.Second

// dedupWindow is how many recent commands a Controller remembers to drop
// repeats of.
const dedupWindow = 4096

// cmdKey identifies one command record: a Remote's seqNums are unique
// among its commands in flight.
type cmdKey struct {
	origin   int32
	identity string
	seq      int32
}

// dedup remembers the last n command keys seen.
type dedup struct {
	mu   sync.Mutex
	set  map[cmdKey]struct{}
	ring []cmdKey
	next int
}

func newDedup(n int) dedup {
	return dedup{set: make(map[cmdKey]struct{}, n), ring: make([]cmdKey, 0, n)}
}

// add records k and reports whether it was new.
func (d *dedup) add(k cmdKey) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.set[k]; ok {
		return false
	}
	if len(d.ring) < cap(d.ring) {
		d.ring = append(d.ring, k)
	} else {
		delete(d.set, d.ring[d.next])
		d.ring[d.next] = k
		d.next = (d.next + 1) % len(d.ring)
	}
	d.set[k] = struct{}{}
	return true
}
