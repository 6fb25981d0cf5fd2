package remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

var (
	// ErrClosed is returned for commands of a closed Remote, and ends the
	// commands still in flight when it closes. It is topics.ErrClosed, the
	// one sentinel of every closed object of the SDK (sal.ErrClosed).
	ErrClosed = topics.ErrClosed
	// ErrCommandFailed is matched by every *AckError.
	ErrCommandFailed = errors.New("remote: command failed")
	// ErrTimeout is matched by every *TimeoutError.
	ErrTimeout = errors.New("remote: command timed out")
	// ErrNoSuchCommand is matched by the error for a command the
	// component does not have (which also matches xml.ErrUnknownTopic).
	ErrNoSuchCommand = errors.New("remote: no such command")
	// ErrNoSuchTopic is matched by the error for an event or telemetry
	// topic the component does not have, or the Remote does not read.
	ErrNoSuchTopic = errors.New("remote: no such topic")
)

// AckError is a command that ended with a failed code (FAILED, ABORTED,
// TIMEOUT from the CSC, NOPERM, NOACK or STALLED). It matches
// ErrCommandFailed with errors.Is.
type AckError struct {
	Remote  string
	Command string
	Ack     *topics.Ack
}

// Error returns the failure: the command, the ack code and its result text.
func (e *AckError) Error() string {
	return fmt.Sprintf("remote: %s command %s failed: ack=%s error=%d result=%q", e.Remote, e.Command, e.Ack.Code, e.Ack.Error, e.Ack.Result)
}

// Is matches ErrCommandFailed.
func (e *AckError) Is(target error) bool { return target == ErrCommandFailed }

// PythonText is what Python's str() gives of ts_salobj's AckError for the
// same ack: "msg='Command failed', ackcmd=(ackcmd private_seqNum=7,
// ack=<SalRetCode.CMD_FAILED: -302>, error=1, result='...')". A script
// failing in run on this error reports it so, as a Python script would.
func (e *AckError) PythonText() string {
	return "msg='Command failed', ackcmd=" + ackcmdText(e.Ack)
}

// ackcmdText is ts_salobj's _ackcmd_str of an ack.
func ackcmdText(a *topics.Ack) string {
	code := strconv.Itoa(int(a.Code))                             // as_salRetCode leaves an unknown code an int
	if name := a.Code.String(); strings.HasPrefix(name, "CMD_") { // a SalRetCode member
		code = "<SalRetCode." + name + ": " + code + ">"
	}
	return "(ackcmd private_seqNum=" + strconv.Itoa(int(a.SeqNum)) + ", ack=" + code +
		", error=" + strconv.Itoa(int(a.Error)) + ", result=" + pyrepr.String(a.Result) + ")"
}

// TimeoutError is a command that saw no final ack in time. Last is the last
// ack seen, or a locally made CMD_NOACK ack if none was. It matches
// ErrTimeout, and context.DeadlineExceeded when the ctx deadline ended it.
type TimeoutError struct {
	Remote  string
	Command string
	Last    *topics.Ack
	Err     error // the ctx error, when the ctx ended the wait
	// Hint, when not empty, is why no ack may have come: no heartbeat of
	// the instance seen, or only an old one (see Remote.HeartbeatAge).
	Hint string
}

// PythonText is what Python's str() gives of ts_salobj's
// AckTimeoutError for the same last ack (see AckError.PythonText).
func (e *TimeoutError) PythonText() string {
	return "msg='Timed out waiting for command acknowledgement', ackcmd=" + ackcmdText(e.Last)
}

// Error says which command saw no final ack, and the last ack it saw.
func (e *TimeoutError) Error() string {
	s := fmt.Sprintf("remote: %s command %s: no final acknowledgement in time; last: %s", e.Remote, e.Command, e.Last)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Is matches ErrTimeout.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// Unwrap returns the ctx error, if any.
func (e *TimeoutError) Unwrap() error { return e.Err }

// CommandOption configures one command.
type CommandOption interface{ applyCmd(*cmdConfig) }

type cmdConfig struct {
	timeout time.Duration
	next    bool
}

type cmdOptFunc func(*cmdConfig)

func (f cmdOptFunc) applyCmd(c *cmdConfig) { f(c) }

// WithTimeout sets the time the command is allowed, overriding
// DefaultTimeout (1 hour, as the reference); each CMD_INPROGRESS ack
// extends it by its timeout field. It bounds the command; the ctx of a
// call bounds that call.
func WithTimeout(d time.Duration) CommandOption {
	return cmdOptFunc(func(c *cmdConfig) { c.timeout = d })
}

// WithNextAck makes Command return the first acknowledgement, whatever it
// is, instead of waiting for the final one (the default).
func WithNextAck() CommandOption { return cmdOptFunc(func(c *cmdConfig) { c.next = true }) }

// Command sends the named command (bare name, e.g. "enable") with params
// (nil for none; missing fields take their defaults) and waits for its
// final acknowledgement. A failed command returns the ack and an *AckError;
// a timeout returns a *TimeoutError.
func (r *Remote) Command(ctx context.Context, name string, params map[string]any, opts ...CommandOption) (*topics.Ack, error) {
	var cfg cmdConfig
	for _, o := range opts {
		o.applyCmd(&cfg)
	}
	f, err := r.startCommand(ctx, name, params, cfg, false)
	if err != nil {
		return nil, err
	}
	if cfg.next {
		return f.Next(ctx)
	}
	return f.Wait(ctx)
}

// StartCommand sends the named command and returns once the broker has it;
// the Future then yields its acknowledgements.
func (r *Remote) StartCommand(ctx context.Context, name string, params map[string]any, opts ...CommandOption) (*Future, error) {
	var cfg cmdConfig
	for _, o := range opts {
		o.applyCmd(&cfg)
	}
	return r.startCommand(ctx, name, params, cfg, true)
}

// startCommand sends the command; with sync it returns once the broker
// has it, else once it is queued (as the reference's start does): a write
// the broker then refuses ends the Future with the error. Not waiting
// saves a goroutine wake-up per command, since the acks come through the
// Future anyway.
func (r *Remote) startCommand(ctx context.Context, name string, params map[string]any, cfg cmdConfig, sync bool) (*Future, error) {
	t, err := r.comp.Lookup(salxml.Command, name)
	if err != nil {
		return nil, &lookupError{sentinel: ErrNoSuchCommand, err: err}
	}
	name = t.Name()
	w := r.cmds[name]
	if w == nil {
		return nil, fmt.Errorf("remote: %s is read-only: cannot send %s", r.Name(), name)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = DefaultTimeout
	}
	rec := make(map[string]any, max(len(t.Fields), len(params))) // room for the stamps: no growing on the way out
	maps.Copy(rec, params)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("remote: %s command %s: %w", r.Name(), name, ErrClosed)
	}
	seq, _ := r.seq.Next(name)
	for r.pending[seq] != nil {
		seq, _ = r.seq.Next(name)
	}
	f := newFuture(r, name, seq, cfg.timeout)
	r.pending[seq] = f
	r.mu.Unlock()
	f.arm()
	r.watchHeartbeat(f)
	if sync {
		_, err = writeSeq(ctx, w, rec, seq)
	} else {
		err = writeSeqAsync(ctx, w, rec, seq, func(_ topics.WriteResult, err error) {
			if err != nil {
				f.fail(fmt.Errorf("remote: %s command %s: %w", r.Name(), name, err))
			}
		})
	}
	if err != nil {
		err = fmt.Errorf("remote: %s command %s: %w", r.Name(), name, err)
		f.fail(err)
		return nil, err
	}
	return f, nil
}

// Future is a command in flight. It owns its deadline: it ends at its
// final acknowledgement or when its time runs out (the command's timeout,
// extended by each CMD_INPROGRESS ack), whether or not anyone waits on
// it. Next and Wait only read what has arrived; the ctx given to them
// bounds that call, not the command. A Future is safe for concurrent use.
type Future struct {
	r     *Remote
	name  string
	seq   int32
	start time.Time // set before the Future is published; read-only after
	done  chan struct{}

	mu        sync.Mutex
	acks      []*topics.Ack // every ack received, in order
	read      int           // acks already returned by Next
	notify    chan struct{} // closed and replaced when an ack arrives
	deadline  time.Time     // start + timeout + the INPROGRESS extensions
	timer     *time.Timer
	hintTimer *time.Timer // see Remote.watchHeartbeat
	last      *topics.Ack
	final     *topics.Ack
	err       error
}

func newFuture(r *Remote, name string, seq int32, timeout time.Duration) *Future {
	f := &Future{r: r, name: name, seq: seq, done: make(chan struct{}), notify: make(chan struct{})}
	f.start = time.Now()
	f.deadline = f.start.Add(timeout)
	return f
}

// arm starts the Future's timer; the Future must be in the pending table.
func (f *Future) arm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended() {
		return
	}
	f.timer = time.AfterFunc(time.Until(f.deadline), f.expire)
}

// SeqNum returns the command's private_seqNum.
func (f *Future) SeqNum() int32 { return f.seq }

// Started returns when the command was sent.
func (f *Future) Started() time.Time { return f.start }

// Command returns the command's bare name.
func (f *Future) Command() string { return f.name }

// Done is closed when the command has ended: at its final ack, at its
// timeout, when its write failed or when the Remote closed.
func (f *Future) Done() <-chan struct{} { return f.done }

// Result returns the final ack and error once Done is closed (nil, nil
// before): the ack and a nil error for CMD_COMPLETE; the ack and an
// *AckError for a failed final code; the last ack seen (or a local
// CMD_NOACK) and a *TimeoutError at the timeout; ErrClosed when the
// Remote closed first.
func (f *Future) Result() (*topics.Ack, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.final, f.err
}

func (f *Future) ended() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

// deliver runs on the Remote's poll goroutine for each ack of this
// command: it never blocks.
func (f *Future) deliver(a *topics.Ack) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended() {
		return
	}
	f.acks = append(f.acks, a)
	f.last = a
	close(f.notify)
	f.notify = make(chan struct{})
	switch {
	case a.Code.Final():
		var err error
		if a.Code.Failed() {
			err = &AckError{Remote: f.r.Name(), Command: f.name, Ack: a}
		}
		f.endLocked(a, err, a.Code.String())
	case a.Code == topics.CmdInProgress && a.Timeout > 0:
		f.deadline = f.deadline.Add(a.Timeout)
		if f.timer != nil {
			f.timer.Reset(time.Until(f.deadline))
		}
	}
}

// expire runs on the timer's goroutine when the deadline may have passed.
func (f *Future) expire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended() {
		return
	}
	if d := time.Until(f.deadline); d > 0 {
		f.timer.Reset(d) // extended after the timer fired
		return
	}
	last := f.lastOrNoAck()
	f.endLocked(last, &TimeoutError{Remote: f.r.Name(), Command: f.name, Last: last, Hint: f.r.heartbeatHint()}, "timeout")
}

// fail ends the command with the error of its write.
func (f *Future) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLocked(nil, err, "")
}

// abandon ends the command because the Remote closed.
func (f *Future) abandon(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLocked(nil, err, "closed")
}

// endLocked ends the command once: sets the result, stops the timer,
// leaves the pending table, closes done and observes the outcome (an
// empty outcome is not observed: a write that failed sent no command).
func (f *Future) endLocked(a *topics.Ack, err error, outcome string) {
	if f.ended() {
		return
	}
	f.final, f.err = a, err
	if f.timer != nil {
		f.timer.Stop()
	}
	if f.hintTimer != nil {
		f.hintTimer.Stop()
	}
	f.r.forget(f)
	close(f.done)
	if m := f.r.in.Domain().Metrics(); m != nil && outcome != "" {
		m.ObserveCommand(f.r.in.TopicInfo("command_"+f.name), outcome, time.Since(f.start))
	}
}

// Wait waits for the command to end and returns its result (see Result).
// If ctx ends first, Wait returns the ctx's error (wrapped in a
// *TimeoutError for a deadline, so that it matches both ErrTimeout and
// context.DeadlineExceeded); the command itself goes on until its final
// ack or its own timeout.
func (f *Future) Wait(ctx context.Context) (*topics.Ack, error) {
	select {
	case <-f.done:
		return f.Result()
	case <-ctx.Done():
		return f.interrupted(ctx)
	}
}

// Next returns the command's next acknowledgement, in the order they
// arrived, waiting until one arrives or ctx ends. A failed final code
// comes with an *AckError. Once every ack has been returned and the
// command has ended, Next keeps returning the result (see Result). As
// with Wait, ctx bounds the call, not the command.
func (f *Future) Next(ctx context.Context) (*topics.Ack, error) {
	for {
		f.mu.Lock()
		if f.read < len(f.acks) {
			a := f.acks[f.read]
			f.read++
			var err error
			if a.Code.Failed() {
				err = &AckError{Remote: f.r.Name(), Command: f.name, Ack: a}
			}
			f.mu.Unlock()
			return a, err
		}
		if f.ended() {
			a, err := f.final, f.err
			f.mu.Unlock()
			return a, err
		}
		notify := f.notify
		f.mu.Unlock()
		select {
		case <-notify:
		case <-f.done:
		case <-ctx.Done():
			return f.interrupted(ctx)
		}
	}
}

// interrupted is what a Wait or Next cut short by ctx returns.
func (f *Future) interrupted(ctx context.Context) (*topics.Ack, error) {
	f.mu.Lock()
	last := f.last
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		last = f.lastOrNoAck()
	}
	f.mu.Unlock()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return last, &TimeoutError{Remote: f.r.Name(), Command: f.name, Last: last, Err: ctx.Err(), Hint: f.r.heartbeatHint()}
	}
	return last, fmt.Errorf("remote: %s command %s: %w", f.r.Name(), f.name, ctx.Err())
}

// lastOrNoAck is the last ack seen, or, if none was, a local CMD_NOACK as
// the reference makes one. f.mu is held.
func (f *Future) lastOrNoAck() *topics.Ack {
	if f.last != nil {
		return f.last
	}
	return &topics.Ack{Code: topics.CmdNoAck, Result: "No command acknowledgement seen", SeqNum: f.seq, Identity: f.r.Identity(), Origin: int32(f.r.in.Origin())}
}

// lookupError is a name the component does not have: it reads
// "remote: <what xml says>" and matches both sentinel and xml's error.
type lookupError struct {
	sentinel error
	err      error
}

func (e *lookupError) Error() string {
	return "remote: " + strings.TrimPrefix(strings.TrimPrefix(e.err.Error(), "xml: "), salxml.ErrUnknownTopic.Error()+": ")
}

func (e *lookupError) Unwrap() []error { return []error{e.sentinel, e.err} }
