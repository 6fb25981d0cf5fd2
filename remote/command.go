package remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/topics"
)

var (
	// ErrClosed is returned for commands of a closed Remote.
	ErrClosed = errors.New("remote: closed")
	// ErrCommandFailed is matched by every *AckError.
	ErrCommandFailed = errors.New("remote: command failed")
	// ErrTimeout is matched by every *TimeoutError.
	ErrTimeout = errors.New("remote: command timed out")
	// ErrNoSuchCommand is returned for a command the component does not have.
	ErrNoSuchCommand = errors.New("remote: no such command")
)

// AckError is a command that ended with a failed code (FAILED, ABORTED,
// TIMEOUT from the CSC, NOPERM, NOACK or STALLED). It matches
// ErrCommandFailed with errors.Is.
type AckError struct {
	Remote  string
	Command string
	Ack     *topics.Ack
}

func (e *AckError) Error() string {
	return fmt.Sprintf("remote: %s command %s failed: ack=%s error=%d result=%q", e.Remote, e.Command, e.Ack.Code, e.Ack.Error, e.Ack.Result)
}

// Is matches ErrCommandFailed.
func (e *AckError) Is(target error) bool { return target == ErrCommandFailed }

// TimeoutError is a command that saw no final ack in time. Last is the last
// ack seen, or a locally made CMD_NOACK ack if none was. It matches
// ErrTimeout, and context.DeadlineExceeded when the ctx deadline ended it.
type TimeoutError struct {
	Remote  string
	Command string
	Last    *topics.Ack
	Err     error // the ctx error, when the ctx ended the wait
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("remote: %s command %s: no final acknowledgement in time; last: %s", e.Remote, e.Command, e.Last)
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

// Timeout sets the time allowed for the command, overriding DefaultTimeout;
// each CMD_INPROGRESS ack extends it by its timeout field. A ctx deadline
// that comes first wins.
func Timeout(d time.Duration) CommandOption { return cmdOptFunc(func(c *cmdConfig) { c.timeout = d }) }

// NextAck makes Command return the first acknowledgement, whatever it is,
// instead of waiting for a final one.
func NextAck() CommandOption { return cmdOptFunc(func(c *cmdConfig) { c.next = true }) }

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
	w := r.cmds[name]
	if w == nil {
		if r.comp.Command(name) != nil {
			return nil, fmt.Errorf("remote: %s is read-only: cannot send %s", r.Name(), name)
		}
		return nil, fmt.Errorf("%w: %s has no command %q", ErrNoSuchCommand, r.comp.Name, name)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = DefaultTimeout
	}
	rec := make(map[string]any, len(params)+10)
	maps.Copy(rec, params)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	seq, _ := r.seq.Next(name)
	for r.pending[seq] != nil {
		seq, _ = r.seq.Next(name)
	}
	f := &Future{r: r, name: name, seq: seq, budget: cfg.timeout, notify: make(chan struct{}, 1), done: make(chan struct{})}
	r.pending[seq] = f
	r.mu.Unlock()
	f.start = time.Now()
	var err error
	if sync {
		_, err = w.WriteSeq(ctx, rec, seq)
	} else {
		err = w.WriteSeqAsync(ctx, rec, seq, func(_ topics.WriteResult, err error) {
			if err != nil {
				f.fail(fmt.Errorf("remote: %s command %s: %w", r.Name(), name, err))
			}
		})
	}
	if err != nil {
		f.forget()
		return nil, fmt.Errorf("remote: %s command %s: %w", r.Name(), name, err)
	}
	return f, nil
}

// Future is a command in flight.
type Future struct {
	r      *Remote
	name   string
	seq    int32
	start  time.Time
	notify chan struct{}
	done   chan struct{}

	mu     sync.Mutex
	queue  []*topics.Ack
	budget time.Duration // total time allowed from start, extended by INPROGRESS
	last   *topics.Ack
	final  *topics.Ack
	err    error
}

// SeqNum returns the command's private_seqNum.
func (f *Future) SeqNum() int32 { return f.seq }

// Done is closed when the command has ended (final ack, timeout or close).
func (f *Future) Done() <-chan struct{} { return f.done }

// Result returns the final ack and error once Done is closed.
func (f *Future) Result() (*topics.Ack, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.final, f.err
}

func (f *Future) deliver(a *topics.Ack) {
	f.mu.Lock()
	f.queue = append(f.queue, a)
	f.mu.Unlock()
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// fail ends the command with the error of its write (as a failed
// synchronous write, it is not observed as a command outcome).
func (f *Future) fail(err error) {
	f.forget()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finishLocked(nil, err)
}

// abandon ends the command with err (Remote closed).
func (f *Future) abandon(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLocked(nil, err)
}

// finishLocked sets the result and closes done, unless the command has
// already ended; it says whether it ended it.
func (f *Future) finishLocked(a *topics.Ack, err error) bool {
	select {
	case <-f.done:
		return false
	default:
	}
	f.final, f.err = a, err
	close(f.done)
	return true
}

// endLocked ends the command as finishLocked does and observes its outcome.
func (f *Future) endLocked(a *topics.Ack, err error) {
	if !f.finishLocked(a, err) {
		return
	}
	if m := f.r.in.Domain().Metrics(); m != nil {
		var te *TimeoutError
		outcome := "closed"
		switch {
		case errors.As(err, &te):
			outcome = "timeout"
		case a != nil:
			outcome = a.Code.String()
		}
		m.ObserveCommand(f.r.in.TopicInfo("command_"+f.name), outcome, time.Since(f.start))
	}
}

// Wait waits for the final acknowledgement.
func (f *Future) Wait(ctx context.Context) (*topics.Ack, error) {
	for {
		a, err := f.Next(ctx)
		if err != nil || a.Code.Final() {
			return a, err
		}
	}
}

// Next returns the next acknowledgement of the command. After the final
// one it keeps returning the final result.
func (f *Future) Next(ctx context.Context) (*topics.Ack, error) {
	for {
		f.mu.Lock()
		select {
		case <-f.done:
			a, err := f.final, f.err
			f.mu.Unlock()
			return a, err
		default:
		}
		if len(f.queue) > 0 {
			a := f.queue[0]
			f.queue = f.queue[1:]
			f.last = a
			if a.Code == topics.CmdInProgress {
				f.budget += a.Timeout
			}
			var err error
			if a.Code.Final() {
				if a.Code.Failed() {
					err = &AckError{Remote: f.r.Name(), Command: f.name, Ack: a}
				}
				f.endLocked(a, err)
			}
			f.mu.Unlock()
			return a, err
		}
		remaining := time.Until(f.start.Add(f.budget))
		f.mu.Unlock()
		if remaining <= 0 {
			return f.timeout(nil)
		}
		timer := time.NewTimer(remaining)
		select {
		case <-f.notify:
			timer.Stop()
		case <-f.done:
			timer.Stop()
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return f.timeout(ctx.Err())
			}
			f.forget()
			return nil, fmt.Errorf("remote: %s command %s: %w", f.r.Name(), f.name, ctx.Err())
		}
	}
}

func (f *Future) forget() {
	f.r.mu.Lock()
	if f.r.pending[f.seq] == f {
		delete(f.r.pending, f.seq)
	}
	f.r.mu.Unlock()
}

func (f *Future) timeout(ctxErr error) (*topics.Ack, error) {
	f.forget()
	f.mu.Lock()
	defer f.mu.Unlock()
	last := f.last
	if last == nil {
		last = &topics.Ack{Code: topics.CmdNoAck, Result: "No command acknowledgement seen", SeqNum: f.seq, Identity: f.r.Identity(), Origin: int32(f.r.in.Origin())}
	}
	err := &TimeoutError{Remote: f.r.Name(), Command: f.name, Last: last, Err: ctxErr}
	f.endLocked(last, err)
	return last, err
}
