package controller_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
)

// TestLogMessage_Fields: a record becomes a logMessage as Python's
// handler writes it: the logger's name, the Python level, the message
// with its attributes, the source file, function and line, the process,
// timestamp 0; an identical record again is not written again.
func TestLogMessage_Fields(t *testing.T) {
	d := testbus.Domain(t, nil)
	csc := startCSC(t, d, 1)
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	lm := r.MustEvent("logMessage")
	for range 2 {
		logPressure(csc)
	}
	csc.Logger().Warn("another")
	rec, err := lm.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"name": "Example", "level": int32(30), "message": "pump pressure low bar=1.5", "functionName": "logPressure", "traceback": "", "timestamp": 0.0} {
		if rec[k] != want {
			t.Errorf("logMessage.%s = %#v, want %#v", k, rec[k], want)
		}
	}
	if filepath.Base(rec["filePath"].(string)) != "logging_test.go" || rec["lineNumber"].(int32) <= 0 {
		t.Errorf("source %v:%v", rec["filePath"], rec["lineNumber"])
	}
	// The repeat of the identical record was not written: next is "another".
	if rec, err := lm.Next(ctx); err != nil || rec["message"] != "another" {
		t.Errorf("after an identical record: %v %v, want the next different one", rec["message"], err)
	}
	csc.Logger().Debug("not published")
	csc.Logger().Info("published", controller.LoggerAttr, "Example.custom")
	if rec, err := lm.Next(ctx); err != nil || rec["message"] != "published" || rec["name"] != "Example.custom" || rec["level"] != int32(20) {
		t.Errorf("got %v %v %v", rec["message"], rec["name"], err)
	}
}

func logPressure(csc *controller.CSC) { csc.Logger().Warn("pump pressure low", "bar", 1.5) }

// TestLogMessage_HandlerErrors: a handler's error is logged after its ack
// on the logger "<Name>.command_<cmd>" with the error's details as
// traceback; an ExpectedError is not logged.
func TestLogMessage_HandlerErrors(t *testing.T) {
	d := testbus.Domain(t, nil)
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"setScalars": func(context.Context, *controller.Command) error { return controller.Expectedf("not now") },
		"setArrays":  func(context.Context, *controller.Command) error { return errors.New("disk full") },
	})
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	lm := r.MustEvent("logMessage")
	if _, err := r.Command(ctx, "setScalars", nil); err == nil {
		t.Fatal("expected failure")
	}
	a, _ := r.Command(ctx, "setArrays", nil)
	if a == nil || a.Result != "Failed: disk full" {
		t.Fatalf("setArrays ack %v", a)
	}
	rec, err := lm.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec["name"] != "Example.command_setArrays" || rec["level"] != int32(40) ||
		!strings.HasPrefix(rec["message"].(string), "Callback setArrays failed with data=command_setArrays(") ||
		!strings.Contains(rec["traceback"].(string), "disk full") {
		t.Errorf("logMessage of a failed handler: %v", rec)
	}
	if s := lm.Stats(); s.Delivered != 1 {
		t.Errorf("%d logMessages, want 1 (none for the ExpectedError)", s.Delivered)
	}
	_ = c
}

// TestLogMessage_BeforeStart: records logged before Start are written once
// the Controller has started, in order; a plain Controller writes logLevel
// at start and answers setLogLevel, writing logLevel when the effective
// level changes.
func TestLogMessage_BeforeStart(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Logger().Info("early one")
	c.Logger().Warn("early two")
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	r := newRemote(t, d, 1)
	ctx := testbus.Ctx(t)
	lm := r.MustEvent("logMessage") // history: the newest
	if rec := lm.Get(); rec == nil || rec["message"] != "early two" {
		t.Errorf("newest logMessage %v, want the second early record", rec)
	}
	ll := r.MustEvent("logLevel")
	if rec, err := ll.Next(ctx); err != nil || rec["level"] != int32(20) {
		t.Fatalf("logLevel at start: %v %v", rec, err)
	}
	command(t, r, "setLogLevel", map[string]any{"level": 10, "subsystem": "ignored"})
	if rec, err := ll.Next(ctx); err != nil || rec["level"] != int32(10) || rec["subsystem"] != "" {
		t.Errorf("logLevel after setLogLevel(10): %v %v", rec, err)
	}
	command(t, r, "setLogLevel", map[string]any{"level": 10})
	command(t, r, "setLogLevel", map[string]any{"level": 30})
	if rec, err := ll.Next(ctx); err != nil || rec["level"] != int32(30) {
		t.Errorf("logLevel after an unchanged level, then 30: %v %v (want 30: an unchanged level is not written)", rec, err)
	}
}

// TestLog_FlushCoversQueued: Domain.Flush (sal.Bus.Flush) returns only
// once the logMessages logged before it are written, as the records
// written directly are: a test that flushes and then reads the bus sees
// them. The log writer's queue used to be outside the flush.
func TestLog_FlushCoversQueued(t *testing.T) {
	d := testbus.Domain(t, nil)
	c, err := controller.New(d, "Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	var written atomic.Int32
	controller.SetLogWrite(c, func(ctx context.Context, _ map[string]any) error {
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		written.Add(1)
		return nil
	})
	if err := c.Start(testbus.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	const n = 3
	for i := range n {
		c.Logger().Warn("queued", "i", i)
	}
	flushed := make(chan error, 1)
	go func() { flushed <- d.Flush(testbus.Ctx(t)) }()
	close(release)
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if got := written.Load(); got != n {
		t.Errorf("Flush returned with %d of the %d logMessages logged before it written", got, n)
	}
}
