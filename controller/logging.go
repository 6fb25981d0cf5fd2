package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ExpectedError is a failure a handler or hook expects, as ts_salobj's
// ExpectedError: the command is acked CMD_FAILED with its text and nothing
// is logged. Any other error is logged at ERROR with its details in
// logMessage's traceback. Make one with Expected or Expectedf.
type ExpectedError struct{ Err error }

// Error returns the wrapped error's text.
func (e *ExpectedError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ExpectedError) Unwrap() error { return e.Err }

// Expected marks err as expected (see ExpectedError); nil stays nil.
func Expected(err error) error {
	if err == nil {
		return nil
	}
	return &ExpectedError{Err: err}
}

// Expectedf is Expected(fmt.Errorf(format, args...)).
func Expectedf(format string, args ...any) error {
	return &ExpectedError{Err: fmt.Errorf(format, args...)}
}

// isExpected reports whether err is, or wraps, an ExpectedError, or is one
// of the configuration failures salobj raises as ExpectedError.
func isExpected(err error) bool {
	var e *ExpectedError
	if errors.As(err, &e) {
		return true
	}
	var x interface{ Expected() bool }
	return errors.As(err, &x) && x.Expected()
}

// LoggerAttr is the slog attribute key that names a record's logger, the
// logMessage name field: by default the component's name (as Python's
// component logger, e.g. "Test"); the SDK's own command records use
// "<Name>.command_<cmd>".
const LoggerAttr = "logger"

// Python logging levels, as written in logLevel and logMessage.
const (
	pyDebug    = 10
	pyInfo     = 20
	pyWarning  = 30
	pyError    = 40
	pyCritical = 50
)

// LevelCritical is the slog level of Python's CRITICAL (50).
const LevelCritical = slog.Level(12)

// slogToPy maps slog levels to Python's: 20 + level×5/2, exact at the named
// levels (Debug 10, Info 20, Warn 30, Error 40, 12: 50).
func slogToPy(l slog.Level) int32 { return int32(20 + int(l)*5/2) }

// pyToSlog is slogToPy's inverse: (python − 20)×2/5.
func pyToSlog(l int32) slog.Level { return slog.Level((int(l) - 20) * 2 / 5) }

// PyToSlog returns the slog level of a Python logging level (10 debug,
// 20 info, 30 warning, 40 error, 50 critical; others in between).
func PyToSlog(l int32) slog.Level { return pyToSlog(l) }

// logSink writes a component's log records as logMessage events, and
// keeps the level setLogLevel sets. Records logged before the component
// has started are kept (the last maxEarly) and written once it has.
//
// Logging never blocks the code that logs (a handler, the poll loop):
// records go to a queue of LogQueueLen that one goroutine writes, each
// write bounded by logWriteWait; when the queue is full (the broker is
// away and the producer's buffer full), a record is dropped and counted
// (Stats.LogDropped), and the drop reported on the process log at most
// once per interval.
type logSink struct {
	c     *Controller
	level slog.LevelVar
	py    atomic.Int32 // the Python level, as set (logLevel reports it exactly)

	dropped atomic.Uint64
	// write writes one record; tests replace it.
	write func(ctx context.Context, rec map[string]any) error
	// writeWait bounds each write (logWriteWait; tests change it).
	writeWait time.Duration

	mu      sync.Mutex
	started bool
	stopped bool
	// queued and finished count the records given to the writer and
	// those it is done with (written or not); progress is closed and
	// replaced each time finished grows (see drain).
	queued, finished uint64
	progress         chan struct{}
	early            []map[string]any
	q                chan map[string]any
	done             chan struct{}
	cancel           context.CancelFunc // ends the write under way (stop)
	ctx              context.Context
}

const maxEarly = 10

// LogQueueLen is how many logMessage records may wait to be written
// before more are dropped and counted.
const LogQueueLen = 1000

// logWriteWait bounds the write of one logMessage; logDrain bounds the
// writing of those still queued when the controller closes.
const (
	logWriteWait = 10 * time.Second
	logDrain     = 2 * time.Second
)

func newLogSink(c *Controller) *logSink {
	s := &logSink{c: c, writeWait: logWriteWait}
	s.write = s.writeEvent
	s.setPy(pyInfo)
	return s
}

// setPy sets the level from a Python level (setLogLevel, a script's
// configure command).
func (s *logSink) setPy(level int32) {
	s.level.Set(pyToSlog(level))
	s.py.Store(level)
}

// start writes the records kept from before the component started (each
// bounded by logWriteWait, so that they are on the bus when Start
// returns), then starts the writer of the later ones.
func (s *logSink) start() {
	for {
		s.mu.Lock()
		if s.started || s.stopped {
			s.mu.Unlock()
			return
		}
		early := s.early
		s.early = nil
		if len(early) == 0 {
			s.started = true
			s.q = make(chan map[string]any, LogQueueLen)
			s.done = make(chan struct{})
			s.ctx, s.cancel = context.WithCancel(context.Background())
			go s.loop(s.q, s.done)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		for _, rec := range early {
			ctx, cancel := context.WithTimeout(context.Background(), s.writeWait)
			if err := s.write(ctx, rec); err != nil {
				s.notWritten(err)
			}
			cancel()
		}
	}
}

func (s *logSink) publish(rec map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopped:
		s.dropped.Add(1) // closed: it went to the process log only
	case !s.started:
		if len(s.early) == maxEarly {
			s.early = s.early[1:]
			s.dropped.Add(1)
		}
		s.early = append(s.early, rec)
	default:
		s.enqueueLocked(rec)
	}
}

// enqueueLocked queues rec, or drops and counts it if the queue is full;
// it never blocks.
func (s *logSink) enqueueLocked(rec map[string]any) {
	select {
	case s.q <- rec:
		s.queued++
	default:
		s.dropped.Add(1)
		s.c.rl.Log(slog.LevelWarn, "logMessage-dropped", "controller: logMessage dropped: the queue of records to write is full (is the broker away?)",
			"controller", s.c.Name(), "dropped", s.dropped.Load())
	}
}

func (s *logSink) loop(q <-chan map[string]any, done chan<- struct{}) {
	defer close(done)
	for rec := range q {
		ctx, cancel := context.WithTimeout(s.ctx, s.writeWait)
		err := s.write(ctx, rec)
		cancel()
		if err != nil {
			s.notWritten(err)
		}
		s.mu.Lock()
		s.finished++
		if s.progress != nil {
			close(s.progress)
			s.progress = nil
		}
		s.mu.Unlock()
	}
}

// drain waits until the writer is done with every record queued before
// the call (Domain.Flush calls it, so that a flush covers the logMessages
// logged before it), or ctx ends. A stopped sink has nothing to wait for.
func (s *logSink) drain(ctx context.Context) error {
	s.mu.Lock()
	target := s.queued
	for s.started && !s.stopped && s.finished < target {
		if s.progress == nil {
			s.progress = make(chan struct{})
		}
		ch := s.progress
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
	}
	s.mu.Unlock()
	return nil
}

// notWritten counts a record whose write failed or was not confirmed in
// time (Stats.LogDropped), and says so on the process log unless the
// controller is closing.
func (s *logSink) notWritten(err error) {
	s.dropped.Add(1)
	if s.c.ctx.Err() == nil {
		s.c.rl.Log(slog.LevelWarn, "logMessage", "controller: logMessage not written", "controller", s.c.Name(), "err", err, "dropped", s.dropped.Load())
	}
}

// stop writes what is queued (for at most logDrain) and stops the writer;
// records logged later are dropped. Safe to call twice.
func (s *logSink) stop() {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	started := s.started
	if started {
		close(s.q)
	}
	s.mu.Unlock()
	if !started {
		return
	}
	t := time.NewTimer(logDrain)
	defer t.Stop()
	select {
	case <-s.done:
	case <-t.C:
		s.cancel()
		<-s.done
	}
	s.cancel()
}

// writeEvent writes one logMessage as the reference's set_write does: an
// identical record again (same logger, level, message, source line) is
// not written again.
func (s *logSink) writeEvent(ctx context.Context, rec map[string]any) error {
	w := s.c.event("logMessage")
	if w == nil {
		return nil
	}
	_, err := w.SetWrite(ctx, rec, false)
	return err
}

// logHandler is the slog.Handler of a Controller's Logger: records at or
// above the component's level become logMessage events; every record also
// goes on to the bus's logger.
type logHandler struct {
	sink  *logSink
	next  slog.Handler
	attrs []slog.Attr
	group string
}

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.sink.level.Level() || h.next.Enabled(ctx, l)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r.Clone())
	}
	if r.Level < h.sink.level.Level() {
		return err
	}
	name := h.sink.c.comp.Name
	traceback := ""
	var msg strings.Builder
	msg.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		switch a.Key {
		case LoggerAttr:
			name = a.Value.String()
		case tracebackAttr:
			traceback = a.Value.String()
		default:
			if h.group != "" {
				a.Key = h.group + "." + a.Key
			}
			msg.WriteString(" " + a.Key + "=" + a.Value.String())
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	file, function, line := "", "", int32(0)
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		file, line = f.File, int32(f.Line)
		function = f.Function[strings.LastIndexByte(f.Function, '.')+1:]
	}
	h.sink.publish(map[string]any{
		"name":         name,
		"level":        slogToPy(r.Level),
		"message":      capText(msg.String()),
		"traceback":    capText(traceback),
		"filePath":     file,
		"functionName": function,
		"lineNumber":   line,
		"process":      int32(os.Getpid()),
		"timestamp":    0.0, // as the reference: "0 if unspecified"
	})
	return err
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	c.next = h.next.WithAttrs(attrs)
	return &c
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.group = name
	c.next = h.next.WithGroup(name)
	return &c
}

// tracebackAttr carries a record's traceback text (logMessage.traceback).
const tracebackAttr = "traceback"

// errorDetail is the traceback text of a handler's error: the chain of
// wrapped errors, outermost first, with their Go types.
func errorDetail(err error) string {
	var b strings.Builder
	b.WriteString("Go error chain (most recent last):\n")
	for e := err; e != nil; e = errors.Unwrap(e) {
		fmt.Fprintf(&b, "  %T: %s\n", e, e)
	}
	return b.String()
}

// setLogLevel is the generic command's handler: the level is set and
// logLevel written with the effective level if it changed; subsystem is
// ignored, as the reference does.
func (c *Controller) setLogLevel(ctx context.Context, cmd *Command) error {
	level, _ := cmd.Data["level"].(int32)
	if level == 0 {
		level = pyWarning // Python's NOTSET inherits the root logger's WARNING
	}
	c.logs.setPy(level)
	return c.writeLogLevel(ctx)
}

// writeLogLevel writes logLevel with the effective level, if it changed.
func (c *Controller) writeLogLevel(ctx context.Context) error {
	w := c.event("logLevel")
	if w == nil {
		return nil
	}
	_, err := w.SetWrite(ctx, map[string]any{"level": c.logs.py.Load(), "subsystem": ""}, false)
	return err
}

// Logger returns the component's logger: its records at or above the
// component's level (INFO unless SetLogLevel or the setLogLevel command
// changed it) are written as logMessage events, with their source file,
// function and line; every record also goes to the bus's logger. Records
// logged before Start are written once the Controller has started (the
// last 10). The attribute LoggerAttr names the logger (logMessage.name).
func (c *Controller) Logger() *slog.Logger { return c.logger }

// SetLogLevel sets the level of the records written as logMessage, as the
// --loglevel flag and setLogLevel do (before Start, the logLevel event
// written at start reports it).
func (c *Controller) SetLogLevel(l slog.Level) {
	c.logs.level.Set(l)
	c.logs.py.Store(slogToPy(l))
}

// LogLevel returns the level of the records written as logMessage.
func (c *Controller) LogLevel() slog.Level { return c.logs.level.Level() }

// logFailure logs a handler's failure as the reference does: nothing for
// an expected error, else at ERROR on the logger "<Name>.command_<cmd>"
// with the error's details as traceback.
func (c *Controller) logFailure(cmd *Command, err error, stack string) {
	if isExpected(err) {
		return
	}
	if stack == "" {
		stack = errorDetail(err)
	}
	c.logger.LogAttrs(context.Background(), slog.LevelError,
		fmt.Sprintf("Callback %s failed with data=%s", cmd.Name, cmd.describe()),
		slog.String(LoggerAttr, c.comp.Name+".command_"+cmd.Name),
		slog.String(tracebackAttr, stack))
}

// describe renders the command's fields for a log line.
func (cmd *Command) describe() string {
	var b strings.Builder
	b.WriteString("command_" + cmd.Name + "(")
	sep := ""
	for _, f := range cmd.c.comp.Command(cmd.Name).Fields {
		if f.Private && f.Name != "private_seqNum" {
			continue
		}
		fmt.Fprintf(&b, "%s%s=%v", sep, f.Name, cmd.Data[f.Name])
		sep = ", "
	}
	b.WriteString(")")
	return b.String()
}
