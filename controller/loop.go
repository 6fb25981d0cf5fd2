package controller

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// loop is a telemetry loop of a CSC (CSC.Loop).
type loop struct {
	name   string
	period time.Duration
	code   int32
	fn     func(ctx context.Context) error

	mu     sync.Mutex
	cancel context.CancelFunc // nil while stopped
	done   chan struct{}      // closed when the running goroutine ends
}

// loopKey marks the context of a loop's goroutine, so that a stop that
// the loop itself causes (its Fault) does not wait for it.
type loopKey struct{}

// Loop adds a loop that runs fn every period while the CSC is ENABLED,
// as salobj's "telemetry loop" pattern does (a task started in
// handle_summary_state when enabled, cancelled otherwise), with its edges
// done once:
//
//   - it starts once summaryState ENABLED is written, so that its first
//     sample follows the state on the bus;
//   - it stops when the CSC leaves ENABLED, before the new state is
//     written, and when the CSC closes: fn's ctx is cancelled and the loop
//     is waited for, so no sample follows the state that stopped it;
//   - an error fn returns (other than its ctx's), or a panic, sends the CSC
//     to FAULT with code and "<name> failed: <error>" (a panic's stack is
//     the traceback), from the loop itself and without a deadlock (the
//     stop this causes does not wait for the loop that called it). The
//     loop then ends; it starts again at the next ENABLED.
//
// fn's first call is at once, then every period (a late call is not made
// up: the ticker drops ticks). Loop must be called before Start.
func (s *CSC) Loop(name string, period time.Duration, code int32, fn func(ctx context.Context) error) error {
	if period <= 0 {
		return fmt.Errorf("controller: loop %s: period %s must be > 0", name, period)
	}
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.startCalled {
		return fmt.Errorf("controller: loop %s: add loops before Start", name)
	}
	s.loops = append(s.loops, &loop{name: name, period: period, code: code, fn: fn})
	return nil
}

// syncLoops starts the loops in ENABLED and stops them in any other state
// (report calls it once the state is written). ctx is the caller's: a
// loop's own (its Fault) is not waited for.
func (s *CSC) syncLoops(ctx context.Context, st State) {
	for _, l := range s.loops {
		if st == Enabled && !s.isClosing() {
			s.startLoop(l)
		} else {
			s.stopLoop(ctx, l)
		}
	}
}

func (s *CSC) startLoop(l *loop) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.WithValue(s.c.ctx, loopKey{}, l))
	done := make(chan struct{})
	l.cancel, l.done = cancel, done
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer close(done)
		s.runLoop(ctx, l)
	}()
}

// stopLoop cancels l and waits for it, unless ctx is l's own.
func (s *CSC) stopLoop(ctx context.Context, l *loop) {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.cancel = nil
	l.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	if self, _ := ctx.Value(loopKey{}).(*loop); self != l {
		<-done
	}
}

func (s *CSC) runLoop(ctx context.Context, l *loop) {
	t := time.NewTicker(l.period)
	defer t.Stop()
	for {
		err := recovered(func() error { return l.fn(ctx) })
		if err != nil && ctx.Err() == nil {
			// The CSC's own context without the loop's cancel: the
			// Fault's writes and hook must not end with this loop.
			s.Fault(context.WithoutCancel(ctx), l.code, fmt.Sprintf("%s failed: %v", l.name, err), detail(err))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
