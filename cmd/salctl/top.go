package main

// top: a live view of the busiest topics of a component.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// topStat is what top knows of one Kafka topic.
type topStat struct {
	kafka, name string // Kafka name, SAL name
	// This interval.
	n, bytes int
	lat      []float64 // seconds
	drops    int64
	// Since the start.
	records, dropsTotal int64
}

// writerKey identifies the writer of a record: its seqNums follow one another.
type writerKey struct {
	topic    string
	origin   int64
	identity string
	index    int64
}

// topRow is one line of a refresh.
type topRow struct {
	Topic       string   `json:"topic"`
	KafkaTopic  string   `json:"kafka_topic"`
	RateHz      float64  `json:"rate_hz"`
	BytesPerSec float64  `json:"bytes_per_sec"`
	LatencyP50  *float64 `json:"latency_p50_s"`
	LatencyMax  *float64 `json:"latency_max_s"`
	Drops       int64    `json:"drops"`
	DropsTotal  int64    `json:"drops_total"`
	Records     int64    `json:"records"`
}

// topReport is one refresh.
type topReport struct {
	Component string    `json:"component"`
	Bus       string    `json:"bus"` // the brokers, or "in-process"
	Index     *int      `json:"index,omitempty"`
	Time      time.Time `json:"time"`
	Refresh   int       `json:"refresh"`
	IntervalS float64   `json:"interval_s"`
	Topics    int       `json:"topics"`
	Active    int       `json:"active"`
	Rows      []topRow  `json:"rows"`
}

// topper counts the records of a component's topics.
type topper struct {
	e      *env
	bus    *sal.Bus
	prefix string // lsst.SUBNAME.COMPONENT.
	index  int
	hasIdx bool

	mu     sync.Mutex
	stats  map[string]*topStat
	last   map[writerKey]int64 // the last private_seqNum of each writer
	topics int                 // topics listened to
}

func cmdTop(e *env, args []string) error {
	fs := flags(e, "top")
	interval := fs.Duration("interval", time.Second, "refresh period")
	rows := fs.Int("n", 20, "number of topics shown, the busiest first")
	count := fs.Int("count", 0, "stop after N refreshes (0: until interrupted)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	asJSON := fs.Bool("json", false, "print one JSON object per refresh")
	plain := fs.Bool("plain", false, "print the tables one after another (the default when stdout is not a terminal) instead of redrawing the screen")
	relist := fs.Duration("relist", 10*time.Second, "how often to look for new topics of the component")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return cli.Usagef("top needs a COMPONENT[:INDEX] (salctl components lists them)")
	}
	if err := wantArgs(pos, 1, 1, "one COMPONENT[:INDEX]"); err != nil {
		return err
	}
	defs, err := loadDefs()
	if err != nil {
		return err
	}
	switch {
	case *interval <= 0 || *relist <= 0:
		return cli.Usagef("-interval and -relist must be > 0")
	case *rows <= 0:
		return cli.Usagef("-n must be > 0, got %d", *rows)
	case *count < 0:
		return cli.Usagef("-count must be >= 0, got %d", *count)
	case *timeout < 0:
		return noLimitTimeout(*timeout)
	}
	comp, idx, hasIdx, err := parseInstance(defs, pos[0])
	if err != nil {
		return err
	}
	var fed []*salxml.Topic
	for _, t := range comp.Topics {
		if t.Kind == salxml.Telemetry || t.Kind == salxml.Event {
			fed = append(fed, t)
		}
	}
	peer := fmt.Sprintf("a built-in writer publishes random records of %s's %d telemetry and event topics at different rates", comp.Name, len(fed))
	if comp.Indexed {
		peer += fmt.Sprintf(" (SAL index %d)", demoIndex(comp, idx))
	}
	bus, err := connect(e, "top", defs, *verbose, peer)
	if err != nil {
		return err
	}
	defer bus.Close()
	t := &topper{
		e: e, bus: bus, index: idx, hasIdx: hasIdx,
		prefix: "lsst." + bus.Config().Subname + "." + comp.Name + ".",
		stats:  map[string]*topStat{}, last: map[writerKey]int64{},
	}
	if bus.Embedded() && len(fed) > 0 {
		feeder, err := startDemoFeeder(e.ctx, bus, weighted(fed), 56)
		if err != nil {
			return err
		}
		defer feeder.close()
	}
	ctx, cancel := withTimeout(e.ctx, *timeout)
	defer cancel()
	listenErr := make(chan error, 1)
	go func() { listenErr <- t.listen(ctx, *relist) }()
	defer func() { cancel(); <-listenErr }()

	redraw := !*asJSON && !*plain && isTerminal(e.stdout)
	report := topReport{Component: comp.Name, Bus: strings.Join(bus.Config().Brokers, ",")}
	if bus.Embedded() {
		report.Bus = "in-process"
	}
	if hasIdx {
		report.Index = &idx
	}
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	start := time.Now()
	for report.Refresh = 1; *count == 0 || report.Refresh <= *count; report.Refresh++ {
		select {
		case <-ctx.Done():
			return nil
		case err := <-listenErr:
			listenErr <- nil // for the deferred wait
			return err
		case <-tick.C:
		}
		now := time.Now()
		t.snapshot(&report, now.Sub(start).Seconds(), *rows)
		start, report.Time = now, now.UTC()
		switch {
		case *asJSON:
			if err := json.NewEncoder(e.stdout).Encode(report); err != nil {
				return err
			}
		case redraw:
			var b strings.Builder
			b.WriteString("\x1b[H\x1b[2J") // home, clear the screen
			writeTable(&b, &report)
			if _, err := io.WriteString(e.stdout, b.String()); err != nil {
				return err
			}
		default:
			var b strings.Builder
			if report.Refresh > 1 {
				b.WriteByte('\n')
			}
			writeTable(&b, &report)
			if _, err := io.WriteString(e.stdout, b.String()); err != nil {
				return err
			}
		}
	}
	return nil
}

// weighted repeats the first telemetry topics in the feeder's round (it
// writes its topics in turn), so that they are written more often than the
// rest: the first 8 times, the second 4 times, the third twice.
func weighted(ts []*salxml.Topic) []*salxml.Topic {
	var out []*salxml.Topic
	w := 8
	for _, t := range ts {
		k := 1
		if t.Kind == salxml.Telemetry && w > 1 {
			k, w = w, w/2
		}
		for range k {
			out = append(out, t)
		}
	}
	return out
}

// isTerminal reports whether x (stdin, stdout) is a terminal.
func isTerminal(x any) bool {
	f, ok := x.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// listen reads every topic of the component with one Tap, lists the
// component's topics every relist (every second while there are none) and
// restarts the Tap when the set changed. It fails when the topics cannot
// be listed, or the Tap keeps failing, for 30 s.
func (t *topper) listen(ctx context.Context, relist time.Duration) error {
	var (
		cur          []string
		stop         = func() {}
		tapDone      <-chan error // nil when no Tap runs
		failingSince time.Time
	)
	stopTap := func() {
		stop()
		stop, tapDone = func() {}, nil
	}
	defer func() { stopTap() }()
	fail := func(err error) error {
		if failingSince.IsZero() {
			failingSince = time.Now()
		}
		if time.Since(failingSince) > 30*time.Second {
			return err
		}
		t.notef("%v; retrying", err)
		return nil
	}
	for {
		names, err := t.bus.Domain.ExistingTopics(ctx, t.prefix)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			if err := fail(err); err != nil {
				return err
			}
		case !slices.Equal(names, cur) || (tapDone == nil && len(names) > 0):
			stopTap()
			cur = names
			t.mu.Lock()
			t.topics = len(cur)
			// Records written while no Tap ran are not seen: start each
			// writer's seqNum afresh rather than count them as drops.
			clear(t.last)
			t.mu.Unlock()
			if len(cur) > 0 {
				stop, tapDone = t.tap(ctx, cur)
			}
		}
		wait := relist
		if len(cur) == 0 {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-tapDone:
			// A Tap only ends before its context on an error, e.g. a topic
			// the client still believes missing: retry after a pause.
			stopTap()
			if ctx.Err() != nil {
				return nil
			}
			if err := fail(fmt.Errorf("reading %d topics of %s: %w", len(cur), t.prefix, err)); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		case <-time.After(wait):
			if err == nil && (tapDone != nil || len(cur) == 0) {
				failingSince = time.Time{} // listed, and the Tap has run a while
			}
		}
	}
}

// tap starts a Tap of names, from their ends. done gives its error once it
// ends; stop ends it and waits for it.
func (t *topper) tap(ctx context.Context, names []string) (stop func(), done <-chan error) {
	ctx, cancel := context.WithCancel(ctx)
	errc, ended := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(ended)
		errc <- t.bus.Domain.Tap(ctx, names, 0, t.add)
	}()
	return func() { cancel(); <-ended }, errc
}

func (t *topper) notef(format string, args ...any) {
	fmt.Fprintf(t.e.stderr, "salctl top: %s\n", fmt.Sprintf(format, args...))
}

// intField reads an integer field of a Tap value (Avro int or long).
func intField(v map[string]any, name string) (int64, bool) {
	switch x := v[name].(type) {
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// add counts one record. Records that cannot be decoded count as drops
// (whatever the SAL index: it is not known). seqNum gaps count only for
// events and telemetry: the private_seqNum of commands and acks is the
// command's number, not a count of the writer's records.
func (t *topper) add(r sal.TapRecord) {
	recv := sal.TAI()
	t.mu.Lock()
	defer t.mu.Unlock()
	idx, _ := intField(r.Value, "salIndex")
	if r.Err == nil && t.hasIdx && idx != int64(t.index) {
		return
	}
	s := t.stats[r.Topic]
	if s == nil {
		s = &topStat{kafka: r.Topic, name: strings.TrimPrefix(r.Topic, t.prefix)}
		t.stats[r.Topic] = s
	}
	if r.Err != nil {
		s.drops++
		s.dropsTotal++
		return
	}
	s.n++
	s.bytes += r.Size
	s.records++
	if snd, ok := r.Value["private_sndStamp"].(float64); ok && snd > 0 {
		s.lat = append(s.lat, recv-snd)
	}
	if s.name == "ackcmd" || strings.HasPrefix(s.name, "command_") {
		return
	}
	seq, ok := intField(r.Value, "private_seqNum")
	if !ok {
		return
	}
	origin, _ := intField(r.Value, "private_origin")
	ident, _ := r.Value["private_identity"].(string)
	k := writerKey{r.Topic, origin, ident, idx}
	if last, ok := t.last[k]; ok && seq > last+1 {
		// A seqNum at or below the last one is a restarted (or wrapped)
		// writer, not a loss.
		s.drops += seq - last - 1
		s.dropsTotal += seq - last - 1
	}
	t.last[k] = seq
}

// snapshot fills rep with the interval that lasted secs, and starts the next.
func (t *topper) snapshot(rep *topReport, secs float64, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rep.IntervalS, rep.Topics, rep.Active, rep.Rows = secs, t.topics, 0, rep.Rows[:0]
	for _, s := range t.stats {
		row := topRow{Topic: s.name, KafkaTopic: s.kafka, Drops: s.drops, DropsTotal: s.dropsTotal, Records: s.records}
		if secs > 0 {
			row.RateHz, row.BytesPerSec = float64(s.n)/secs, float64(s.bytes)/secs
		}
		if len(s.lat) > 0 {
			sum := cli.Summarize(s.lat)
			p50, hi := sum.Pct(0.5), sum.Max
			row.LatencyP50, row.LatencyMax = &p50, &hi
		}
		if s.n > 0 {
			rep.Active++
		}
		rep.Rows = append(rep.Rows, row)
		s.n, s.bytes, s.lat, s.drops = 0, 0, s.lat[:0], 0
	}
	slices.SortFunc(rep.Rows, func(a, b topRow) int {
		switch {
		case a.RateHz != b.RateHz:
			if a.RateHz > b.RateHz {
				return -1
			}
			return 1
		case a.BytesPerSec != b.BytesPerSec:
			if a.BytesPerSec > b.BytesPerSec {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Topic, b.Topic)
	})
	if len(rep.Rows) > n {
		rep.Rows = rep.Rows[:n]
	}
}

// writeTable renders a refresh as text.
func writeTable(b *strings.Builder, rep *topReport) {
	inst := rep.Component
	if rep.Index != nil {
		inst = fmt.Sprintf("%s:%d", inst, *rep.Index)
	}
	fmt.Fprintf(b, "salctl top %s on %s bus  %s  %d topics listened to, %d active in %.2f s\n",
		inst, rep.Bus, rep.Time.Format("2006-01-02 15:04:05 UTC"), rep.Topics, rep.Active, rep.IntervalS)
	w := len("TOPIC")
	for _, r := range rep.Rows {
		w = max(w, len(r.Topic))
	}
	fmt.Fprintf(b, "%-*s  %9s  %11s  %9s  %9s  %6s  %11s  %9s\n", w, "TOPIC", "RATE Hz", "BANDWIDTH", "LAT p50", "LAT max", "DROPS", "DROPS TOTAL", "RECORDS")
	for _, r := range rep.Rows {
		fmt.Fprintf(b, "%-*s  %9.1f  %11s  %s  %s  %6d  %11d  %9d\n", w, r.Topic, r.RateHz, human(r.BytesPerSec)+"/s",
			padLeft(seconds(r.LatencyP50), 9), padLeft(seconds(r.LatencyMax), 9), r.Drops, r.DropsTotal, r.Records)
	}
	if len(rep.Rows) == 0 {
		b.WriteString("(no records yet)\n")
	}
}

// padLeft pads s with spaces to n characters (µ is two bytes).
func padLeft(s string, n int) string {
	return strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s))) + s
}

// seconds renders a latency in s, ms or µs; "-" for none.
func seconds(s *float64) string {
	switch {
	case s == nil:
		return "-"
	case *s >= 1 || *s <= -1:
		return fmt.Sprintf("%.2f s", *s)
	case *s >= 1e-3 || *s <= -1e-3:
		return fmt.Sprintf("%.1f ms", *s*1e3)
	}
	return fmt.Sprintf("%.0f µs", *s*1e6)
}
