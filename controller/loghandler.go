package controller

import (
	"context"
	"log/slog"
	"os"
	"strings"
)

// logHandler writes records as logMessage events and passes them on.
type logHandler struct {
	csc   *CSC
	next  slog.Handler
	attrs []slog.Attr
	group string
}

func newLogHandler(s *CSC, next slog.Handler) *logHandler { return &logHandler{csc: s, next: next} }

func (h *logHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.csc.level.Level() || h.next.Enabled(ctx, l)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r)
	}
	if r.Level < h.csc.level.Level() {
		return err
	}
	w := h.csc.c.event("logMessage")
	if w == nil {
		return err
	}
	var msg strings.Builder
	msg.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		msg.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	rec := map[string]any{
		"name":         h.csc.Name(),
		"level":        slogToPy(r.Level),
		"message":      msg.String(),
		"traceback":    "",
		"filePath":     "",
		"functionName": "",
		"lineNumber":   int32(0),
		"process":      int32(os.Getpid()),
		"timestamp":    float64(r.Time.UnixNano()) / 1e9,
	}
	if werr := w.WriteAsync(context.Background(), rec, nil); werr != nil && err == nil {
		err = werr
	}
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
