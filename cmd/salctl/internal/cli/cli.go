package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TopicNames is the usage text, for read and write, of the names a
// TOPIC argument takes.
const TopicNames = `TOPIC is a SAL name (logevent_x, command_x, a telemetry name, ackcmd) or an
attribute name (evt_x, cmd_x, tel_x).
`

// UsageError is a mistake on the command line: exit status 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// ParseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns the positional ones.
func ParseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, UsageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// IsSet reports whether the flag was given on the command line.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// FindComponent returns the named component (Definitions.Component), or a
// usage error listing the close matches; with none, it ends
// "unknown component NAME: DIR defines N components" with tail.
func FindComponent(defs *salxml.Definitions, name, tail string) (*salxml.Component, error) {
	c, err := defs.Component(name)
	if !errors.Is(err, salxml.ErrUnknownComponent) {
		return c, err
	}
	if cl := salxml.Closest(name, defs.Names()); len(cl) > 0 {
		return nil, Usagef("unknown component %q (did you mean %s?)", name, strings.Join(cl, ", "))
	}
	return nil, Usagef("unknown component %q: %s defines %d components%s", name, defs.Dir, len(defs.Names()), tail)
}

// FindTopic resolves a SAL name (logevent_x, command_x, a telemetry name,
// ackcmd) or an attribute name (evt_x, cmd_x, tel_x, ack_ackcmd) with
// Component.FindTopic, or returns a usage error listing the close matches;
// with none, it ends "COMPONENT has no topic NAME" with tail.
//
// A bare event or command name (summaryState, setScalars) names the event
// or command, as Component.Lookup takes them; one that names both is a
// usage error asking for evt_x or cmd_x.
func FindTopic(c *salxml.Component, name, tail string) (*salxml.Topic, error) {
	t, err := c.FindTopic(name)
	if !errors.Is(err, salxml.ErrUnknownTopic) {
		return t, err
	}
	ev, cmd := c.Event(name), c.Command(name)
	switch {
	case ev != nil && cmd != nil:
		return nil, Usagef("%s: %q is both an event and a command: give %s or %s", c.Name, name, ev.AttrName(), cmd.AttrName())
	case ev != nil:
		return ev, nil
	case cmd != nil:
		return cmd, nil
	}
	var cands []string
	for _, t := range c.Topics {
		cands = append(cands, t.SALName, t.AttrName())
	}
	if cl := salxml.Closest(name, cands); len(cl) > 0 {
		return nil, Usagef("%s has no topic %q (did you mean %s?)", c.Name, name, strings.Join(cl, ", "))
	}
	return nil, Usagef("%s has no topic %q%s", c.Name, name, tail)
}

// LogHandler logs the SDK's warnings, or with verbose its info messages,
// as text on w.
func LogHandler(w io.Writer, verbose bool) slog.Handler {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	return slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
}

// Logger is a logger with LogHandler's handler.
func Logger(w io.Writer, verbose bool) *slog.Logger { return slog.New(LogHandler(w, verbose)) }

// PlainHandler logs the SDK's warnings, or with verbose its info
// messages, as the programs print their other messages: one plain line per
// record on w, "prefix: warning: message (key=value, ...)" ("error: " for
// errors, nothing for info), with no time or level= key.
func PlainHandler(w io.Writer, prefix string, verbose bool) slog.Handler {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	return &plainHandler{out: &plainOut{w: w}, prefix: prefix, level: level}
}

type plainOut struct {
	mu sync.Mutex
	w  io.Writer
}

type plainHandler struct {
	out    *plainOut
	prefix string
	level  slog.Level
	attrs  []slog.Attr // from WithAttrs, their keys qualified by the groups
	group  string      // the groups of WithGroup, each followed by "."
}

func (h *plainHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *plainHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(h.prefix + ": ")
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	case r.Level < slog.LevelInfo:
		b.WriteString("debug: ")
	}
	b.WriteString(r.Message)
	var kv []string
	add := func(group string, a slog.Attr) {
		a.Value = a.Value.Resolve()
		if a.Equal(slog.Attr{}) {
			return
		}
		kv = append(kv, group+a.Key+"="+a.Value.String())
	}
	for _, a := range h.attrs {
		add("", a)
	}
	r.Attrs(func(a slog.Attr) bool { add(h.group, a); return true })
	if len(kv) > 0 {
		b.WriteString(" (" + strings.Join(kv, ", ") + ")")
	}
	b.WriteString("\n")
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := io.WriteString(h.out.w, b.String())
	return err
}

func (h *plainHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = slices.Clone(h.attrs)
	for _, a := range as {
		a.Key = h.group + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *plainHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group += name + "."
	return &c
}

// Connect connects, within a minute, to the bus of the LSST_* variables,
// or starts an in-process one, with defs and log and then opts.
func Connect(ctx context.Context, defs *salxml.Definitions, log *slog.Logger, opts ...sal.Option) (*sal.Bus, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	opts = append([]sal.Option{sal.WithDefinitions(defs), sal.WithLogger(log)}, opts...)
	return sal.Connect(ctx, opts...)
}

// ListedBySalctl is the FindTopic tail of read and write: the command that
// lists c's topics.
func ListedBySalctl(c *salxml.Component) string {
	return fmt.Sprintf("; its %d topics are listed by: salctl topics %s", len(c.Topics), c.Name)
}
