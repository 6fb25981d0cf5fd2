package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// fromStart, as Tap's back, reads a partition from its beginning.
const fromStart = math.MaxInt

// follower reads whole Kafka topics by name with the SDK's Tap, which
// decodes each value with its writer's schema from the registry.
type follower struct {
	e      *env
	verb   string
	names  []string
	known  []*salxml.Topic // the topics the definitions know (for the demo feeder)
	back   int             // records to go back from each partition's end at start
	bus    *sal.Bus
	feeder *demoFeeder
	shapes map[int32]shape // by schema id
	defs   *salxml.Definitions
	enums  map[string]*cli.Enums // by component
}

// kafkaTopic resolves a full Kafka topic name (lsst.SUBNAME.C.T) or
// COMPONENT.TOPIC. The definitions are optional: a topic they do not know
// is read as named (the schema comes from the registry), with a warning;
// a component they do not know but have a close match for is a usage error
// (a typo would wait forever for a topic nobody writes).
func kafkaTopic(e *env, verb string, defs *salxml.Definitions, subname, arg string) (string, *salxml.Topic, error) {
	var comp, tname, kname string
	if strings.HasPrefix(arg, "lsst.") {
		parts := strings.SplitN(arg, ".", 4)
		if len(parts) != 4 || parts[2] == "" || parts[3] == "" {
			return "", nil, cli.Usagef("%q: want lsst.SUBNAME.COMPONENT.TOPIC or COMPONENT.TOPIC", arg)
		}
		comp, tname, kname = parts[2], parts[3], arg
	} else {
		var ok bool
		if comp, tname, ok = strings.Cut(arg, "."); !ok || comp == "" || tname == "" {
			return "", nil, cli.Usagef("%q: want COMPONENT.TOPIC (e.g. Example.scalars, Example.evt_summaryState) or a full Kafka topic name", arg)
		}
		kname = "lsst." + subname + "." + comp + "." + salName(tname)
	}
	if !defs.Has(comp) {
		// A likely typo fails at once; any other name is read
		// schema-unaware (a component of other definitions), with a
		// warning, since nothing may ever be written to it.
		if cl := salxml.Closest(comp, defs.Names()); len(cl) > 0 {
			return "", nil, cli.Usagef("%q: unknown component %q (did you mean %s?)", arg, comp, strings.Join(cl, ", "))
		}
		fmt.Fprintf(e.stderr, "salctl %s: warning: %s is not a component of the definitions (%s); reading %s anyway, with its writer's schema\n", verb, comp, strings.Trim(defs.Dir, "()"), kname)
		return kname, nil, nil
	}
	c, err := defs.Component(comp)
	if err != nil {
		return "", nil, err
	}
	t, err := findTopic(c, tname)
	if err != nil {
		fmt.Fprintf(e.stderr, "salctl %s: warning: %v; reading %s anyway, with its writer's schema\n", verb, err, kname)
		return kname, nil, nil
	}
	if strings.HasPrefix(arg, "lsst.") && t.KafkaName(subname) != kname {
		return kname, nil, nil // another subname: still readable, but not ours to feed
	}
	return t.KafkaName(subname), t, nil
}

// startFollower resolves the topics named, runs check (may be nil) on
// those the definitions know, by Kafka name, and connects.
func startFollower(e *env, verb string, defs *salxml.Definitions, args []string, back int, verbose bool, check func(map[string]*salxml.Topic) error) (*follower, error) {
	cfg, err := sal.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	f := &follower{e: e, verb: verb, back: back, shapes: map[int32]shape{}, defs: defs, enums: map[string]*cli.Enums{}}
	known := map[string]*salxml.Topic{}
	// Unset, the subname is the in-process bus's "sal"; on a broker,
	// connecting fails below without it.
	sub := cmp.Or(cfg.Subname, sal.DefaultSubname)
	for _, a := range args {
		kn, t, err := kafkaTopic(e, verb, defs, sub, a)
		if err != nil {
			return nil, err
		}
		if slices.Contains(f.names, kn) {
			return nil, cli.Usagef("topic %s given twice", kn)
		}
		f.names = append(f.names, kn)
		if t != nil {
			f.known = append(f.known, t)
			known[kn] = t
		}
	}
	if check != nil {
		if err := check(known); err != nil {
			return nil, err
		}
	}
	peer := "a built-in writer publishes random records of " + strings.Join(topicNames(f.known), ", ") + " at 20 Hz"
	if len(f.known) == 0 {
		peer = "no topic named is in the definitions, so nothing will be written to it"
	}
	if f.bus, err = connect(e, verb, defs, verbose, peer); err != nil {
		return nil, err
	}
	from := "the end of each partition"
	switch {
	case f.bus.Embedded():
		// Everything on an in-process bus is this run's: read it all, so
		// that nothing the feeder writes before Tap starts is missed.
		f.back, from = fromStart, "the beginning"
	case back > 0:
		from = fmt.Sprintf("the last %d records of each partition", back)
	}
	// Tests wait for this line before writing. Tap looks up where each
	// partition ends only when it starts, just after: a record written to
	// an existing topic in those few milliseconds is not shown (Tap does
	// not say when it is in place). Topics that do not exist yet, and the
	// in-process bus, are read from their beginnings, so lose nothing.
	fmt.Fprintf(e.stderr, "salctl %s: listening on %s (from %s) at %s\n", verb, strings.Join(f.names, ", "), from, strings.Join(f.bus.Config().Brokers, ","))
	if f.bus.Embedded() && len(f.known) > 0 {
		if f.feeder, err = startDemoFeeder(e.ctx, f.bus, f.known, 20); err != nil {
			f.close()
			return nil, err
		}
	}
	return f, nil
}

func (f *follower) close() {
	if f.feeder != nil {
		f.feeder.close()
	}
	f.bus.Close()
}

// prefix is what hz and bw print before a topic's lines: its name when
// more than one topic is followed.
func (f *follower) prefix(name string) string {
	if len(f.names) > 1 {
		return name + ": "
	}
	return ""
}

func (f *follower) notef(format string, args ...any) {
	fmt.Fprintf(f.e.stderr, "salctl %s: %s\n", f.verb, fmt.Sprintf(format, args...))
}

// run reads every topic until ctx ends or handle returns false; tick (may
// be nil) runs about once a second. handle and tick never run at once.
func (f *follower) run(ctx context.Context, handle func(sal.TapRecord) bool, tick func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	stopped := false
	fn := func(r sal.TapRecord) {
		mu.Lock()
		defer mu.Unlock()
		if !stopped && !handle(r) {
			stopped = true
			cancel()
		}
	}
	// One Tap per topic: a topic that does not exist yet fails Tap, and
	// must not keep the others from being read while it is waited for.
	errs := make(chan error, len(f.names))
	for _, name := range f.names {
		go func() { errs <- f.tap(ctx, name, fn) }()
	}
	var ticks <-chan time.Time
	if tick != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		ticks = t.C
	}
	var firstErr error
	for pending := len(f.names); pending > 0; {
		select {
		case err := <-errs:
			pending--
			if err != nil && firstErr == nil {
				firstErr = err
				cancel()
			}
		case <-ticks:
			mu.Lock()
			if !stopped {
				tick()
			}
			mu.Unlock()
		}
	}
	return firstErr
}

// tap reads one topic with Tap until ctx ends. A topic that does not
// exist yet is waited for, and read from its beginning once it appears;
// other errors are retried for 30 s. Retries go through a new Domain each
// time: the bus's Kafka client keeps a "no such topic" answer for a few
// seconds (see sal.Bus's watermarks), a new client has no cache.
func (f *follower) tap(ctx context.Context, name string, fn func(sal.TapRecord)) error {
	back, waiting := f.back, false
	var failingSince, lastWarn time.Time
	b := f.bus
	for {
		var err error
		if b == nil {
			b, err = sal.Connect(ctx, sal.WithConfig(f.bus.Config()), sal.WithLogger(f.bus.Logger()))
		}
		if err == nil {
			err = b.Tap(ctx, []string{name}, back, fn)
			if b != f.bus {
				b.Close()
			}
		}
		b = nil
		if ctx.Err() != nil {
			return nil
		}
		if missingTopic(err) {
			if !waiting {
				f.notef("topic %s does not exist yet: waiting for it", name)
				waiting, back = true, fromStart // when it appears, everything in it is new
			}
			failingSince = time.Time{}
		} else {
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if time.Since(failingSince) > 30*time.Second {
				return err
			}
			if time.Since(lastWarn) > 5*time.Second {
				f.notef("%v; retrying", err)
				lastWarn = time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// missingTopic reports whether Tap failed because a topic does not exist
// (yet). Tap has no error value for that, so this goes by Kafka's error
// names in the text.
func missingTopic(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "UNKNOWN_TOPIC_OR_PARTITION") || strings.Contains(s, "LEADER_NOT_AVAILABLE") || strings.Contains(s, "has no partitions")
}

// shape is what echo shows of a writer schema: its full name, and its
// fields in order.
type shape struct {
	name   string
	fields []string
}

func parseShape(text string) shape {
	var s struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		Fields    []struct {
			Name string `json:"name"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return shape{}
	}
	sh := shape{name: s.Name}
	if s.Namespace != "" && s.Name != "" && !strings.Contains(s.Name, ".") {
		sh.name = s.Namespace + "." + s.Name
	}
	for _, fl := range s.Fields {
		sh.fields = append(sh.fields, fl.Name)
	}
	return sh
}

// record puts a Tap value's fields in schema order (fields that the
// schema text does not list, if any, last and sorted).
func (f *follower) record(r sal.TapRecord) (shape, *cli.Record) {
	sh, ok := f.shapes[r.SchemaID]
	if !ok && r.Schema != "" {
		sh = parseShape(r.Schema)
		f.shapes[r.SchemaID] = sh
	}
	if r.Value == nil {
		return sh, nil
	}
	rec := &cli.Record{}
	for _, n := range sh.fields {
		if v, ok := r.Value[n]; ok {
			rec.Names, rec.Values = append(rec.Names, n), append(rec.Values, v)
		}
	}
	if len(rec.Names) < len(r.Value) {
		for _, n := range slices.Sorted(maps.Keys(r.Value)) {
			if !slices.Contains(rec.Names, n) {
				rec.Names, rec.Values = append(rec.Names, n), append(rec.Values, r.Value[n])
			}
		}
	}
	return sh, rec
}

// withTimeout bounds ctx by d (0: no bound).
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

func topicNames(ts []*salxml.Topic) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// ---------------------------------------------------------------------
// echo

const echoHelp = `A TOPIC is COMPONENT.TOPIC (Example.scalars, Example.evt_summaryState) or a
full Kafka topic name (lsst.sal.Example.scalars). Each record is decoded with
its writer's schema from the registry, so topics the definitions do not know
are read too, with a warning (a component close to a defined one, a likely
typo, is refused: unknown component "Tset" (did you mean Test?)). The text output has one line a field, enumerated values with
their names (summaryState: 2 (ENABLED)); -json prints one object per record
with the values as numbers, NaN and infinities as the strings "NaN",
"Infinity" and "-Infinity", which pub accepts back. -fields names fields that
every topic must have (an unknown one is an error naming the close matches).
-timeout 0 (the default) means no limit; it must not be negative.
` + listenExitHelp

// listenExitHelp is the exit status paragraph of echo, hz and bw.
const listenExitHelp = `The exit status is 0 when -n records were seen (without -n: at least one by
-timeout), 1 when -timeout came first (fewer than -n records, or none).`

func cmdEcho(e *env, args []string) error {
	fs := flags(e, "echo")
	n := fs.Int("n", 0, "stop after COUNT records (0: until interrupted)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	asJSON := fs.Bool("json", false, "print one JSON object per record")
	last := fs.Int("last", 0, "first print the last N records of each partition")
	only := fs.String("fields", "", "print only these fields (comma separated)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 1, -1, "TOPIC...")
	if err != nil {
		return err
	}
	if *n < 0 || *last < 0 {
		return cli.Usagef("-n and -last must be >= 0")
	}
	if err := noLimitTimeout(*timeout); err != nil {
		return err
	}
	var fields []string
	if *only != "" {
		for _, fn := range strings.Split(*only, ",") {
			if fn = strings.TrimSpace(fn); fn != "" {
				fields = append(fields, fn)
			}
		}
	}
	// The fields are checked against the definitions' topics before
	// connecting, and against each other topic's writer schema at its
	// first record.
	check := func(known map[string]*salxml.Topic) error {
		for kn, t := range known {
			var names []string
			for _, fl := range t.Fields {
				names = append(names, fl.Name)
			}
			if err := checkFields(kn, fields, names); err != nil {
				return err
			}
		}
		return nil
	}
	f, err := startFollower(e, "echo", defs, pos, *last, *verbose, check)
	if err != nil {
		return err
	}
	defer f.close()
	ctx, cancel := withTimeout(e.ctx, *timeout)
	defer cancel()
	count := 0
	checked := map[int32]bool{}
	var fieldErr error
	err = f.run(ctx, func(r sal.TapRecord) bool {
		if len(fields) > 0 && r.Err == nil && !checked[r.SchemaID] {
			sh, _ := f.record(r)
			if fieldErr = checkFields(r.Topic, fields, sh.fields); fieldErr != nil {
				return false
			}
			checked[r.SchemaID] = true
		}
		f.print(r, *asJSON, fields)
		count++
		return *n == 0 || count < *n
	}, nil)
	if fieldErr != nil {
		return fieldErr
	}
	if err != nil {
		return err
	}
	return f.end(*timeout, *n, count)
}

// end is the error of a listening verb (echo, hz, bw) once its run is
// over: none when it saw the -n records it asked for, or had no -n and
// saw some; else an interruption or a -timeout that came first (exit
// status 1: "nothing" is a failure, as for history).
func (f *follower) end(timeout time.Duration, n, count int) error {
	switch {
	case n > 0 && count >= n, n == 0 && count > 0:
		return nil
	case f.e.ctx.Err() != nil:
		if n > 0 {
			return fmt.Errorf("interrupted after %d of %d records", count, n)
		}
		return nil // the signal's exit status
	case n > 0:
		return fmt.Errorf("timeout after %s: %d of %d records", timeout, count, n)
	}
	return fmt.Errorf("timeout after %s: no record of %s", timeout, strings.Join(f.names, ", "))
}

// checkFields refuses -fields that a topic does not have, naming the
// close matches.
func checkFields(topic string, want, have []string) error {
	for _, w := range want {
		if slices.Contains(have, w) {
			continue
		}
		if c := salxml.Closest(w, have); len(c) > 0 {
			return cli.Usagef("-fields: %s has no field %q (did you mean %s?)", topic, w, strings.Join(c, ", "))
		}
		return cli.Usagef("-fields: %s has no field %q; its fields are %s", topic, w, strings.Join(have, ", "))
	}
	return nil
}

// enumsOf returns the enumerations of a Kafka topic's component (the
// generic ones only for a component the definitions do not have), and
// the topic's SAL name.
func (f *follower) enumsOf(kafka string) (*cli.Enums, string) {
	parts := strings.SplitN(kafka, ".", 4)
	if len(parts) != 4 {
		return nil, kafka
	}
	comp, topic := parts[2], parts[3]
	en, ok := f.enums[comp]
	if !ok {
		var c *salxml.Component
		if f.defs != nil && f.defs.Has(comp) {
			c, _ = f.defs.Component(comp)
		}
		en = cli.NewEnums(c)
		f.enums[comp] = en
	}
	return en, topic
}

// print prints a record: as a JSON line, or as a header line and one
// line a field (enumerated values with their names).
func (f *follower) print(r sal.TapRecord, asJSON bool, fields []string) {
	sh, rec := f.record(r)
	if rec != nil && len(fields) > 0 {
		sub := &cli.Record{}
		for _, fn := range fields {
			sub.Names, sub.Values = append(sub.Names, fn), append(sub.Values, r.Value[fn])
		}
		rec = sub
	}
	var b strings.Builder
	if asJSON {
		fmt.Fprintf(&b, `{"topic":%q,"partition":%d,"offset":%d`, r.Topic, r.Partition, r.Offset)
		if r.Schema != "" {
			fmt.Fprintf(&b, `,"schema_id":%d,"schema":%q`, r.SchemaID, sh.name)
		}
		if len(r.Key) > 0 {
			fmt.Fprintf(&b, `,"key":%s`, strconv.Quote(string(r.Key)))
		}
		if r.Err != nil {
			fmt.Fprintf(&b, `,"error":%q,"size":%d`, r.Err.Error(), r.Size)
		} else {
			b.WriteString(`,"value":`)
			cli.JSONValue(&b, rec)
		}
		b.WriteString("}\n")
		_, _ = fmt.Fprint(f.e.stdout, b.String())
		return
	}
	fmt.Fprintf(&b, "--- %s [%d] offset %d", r.Topic, r.Partition, r.Offset)
	if r.Schema != "" {
		fmt.Fprintf(&b, ", schema id %d (%s)", r.SchemaID, sh.name)
	}
	b.WriteByte('\n')
	if r.Err != nil {
		fmt.Fprintf(&b, "cannot decode: %v\nsize: %d bytes\n", r.Err, r.Size)
	} else {
		enums, topic := f.enumsOf(r.Topic)
		for i, n := range rec.Names {
			fmt.Fprintf(&b, "%s: %s\n", n, enums.Label(topic, n, rec.Values[i]))
		}
	}
	_, _ = fmt.Fprint(f.e.stdout, b.String())
}

// ---------------------------------------------------------------------
// hz and bw

// stamp is when a record was published: its private_sndStamp (TAI
// seconds), else when it was received (Tap gives no Kafka timestamps).
func stamp(r sal.TapRecord) float64 {
	if s, ok := r.Value["private_sndStamp"].(float64); ok && s > 0 {
		return s
	}
	return float64(time.Now().UnixNano()) / 1e9
}

type hzStats struct {
	last   float64
	seen   int
	deltas []float64
	fresh  int // records since the last report
}

func (h *hzStats) add(t float64, window int) {
	if h.seen > 0 {
		h.deltas = append(h.deltas, t-h.last)
		if window > 0 && len(h.deltas) > window {
			h.deltas = h.deltas[len(h.deltas)-window:]
		}
	}
	h.last = t
	h.seen++
	h.fresh++
}

func (h *hzStats) report() (rate, lo, hi, sd float64, ok bool) {
	if len(h.deltas) == 0 {
		return 0, 0, 0, 0, false
	}
	s := cli.Summarize(h.deltas)
	if s.Mean > 0 {
		rate = 1 / s.Mean
	}
	return rate, s.Min, s.Max, s.Stdev, true
}

func cmdHz(e *env, args []string) error {
	fs := flags(e, "hz")
	n := fs.Int("n", 0, "stop after COUNT records (0: until interrupted)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	window := fs.Int("window", 10000, "number of intervals averaged")
	asJSON := fs.Bool("json", false, "print JSON lines")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 1, -1, "TOPIC...")
	if err != nil {
		return err
	}
	if err := noLimitTimeout(*timeout); err != nil {
		return err
	}
	f, err := startFollower(e, "hz", defs, pos, 0, *verbose, nil)
	if err != nil {
		return err
	}
	defer f.close()
	ctx, cancel := withTimeout(e.ctx, *timeout)
	defer cancel()
	stats := map[string]*hzStats{}
	for _, nm := range f.names {
		stats[nm] = &hzStats{}
	}
	report := func(final bool) {
		for _, nm := range f.names {
			s, prefix := stats[nm], f.prefix(nm)
			rate, lo, hi, sd, ok := s.report()
			switch {
			case *asJSON:
				_ = json.NewEncoder(e.stdout).Encode(map[string]any{"topic": nm, "rate_hz": rate, "min_s": lo, "max_s": hi, "stdev_s": sd, "window": len(s.deltas) + 1, "final": final, "new": s.fresh})
			case !ok || (s.fresh == 0 && !final):
				fmt.Fprintf(e.stdout, "%sno new messages\n", prefix)
			default:
				fmt.Fprintf(e.stdout, "%saverage rate: %.3f\n\tmin: %.3fs max: %.3fs std dev: %.5fs window: %d\n", prefix, rate, lo, hi, sd, len(s.deltas)+1)
			}
			s.fresh = 0
		}
	}
	count := 0
	err = f.run(ctx, func(r sal.TapRecord) bool {
		stats[r.Topic].add(stamp(r), *window)
		count++
		return *n == 0 || count < *n
	}, func() { report(false) })
	if err != nil {
		return err
	}
	report(true)
	return f.end(*timeout, *n, count)
}

type bwStats struct {
	sizes []int // this interval
	total int64
	count int
}

func cmdBw(e *env, args []string) error {
	fs := flags(e, "bw")
	n := fs.Int("n", 0, "stop after COUNT records (0: until interrupted)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	asJSON := fs.Bool("json", false, "print JSON lines")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 1, -1, "TOPIC...")
	if err != nil {
		return err
	}
	if err := noLimitTimeout(*timeout); err != nil {
		return err
	}
	f, err := startFollower(e, "bw", defs, pos, 0, *verbose, nil)
	if err != nil {
		return err
	}
	defer f.close()
	ctx, cancel := withTimeout(e.ctx, *timeout)
	defer cancel()
	stats := map[string]*bwStats{}
	for _, nm := range f.names {
		stats[nm] = &bwStats{}
	}
	start := time.Now()
	lastReport := start
	report := func(final bool) {
		now := time.Now()
		secs := now.Sub(lastReport).Seconds()
		lastReport = now
		for _, nm := range f.names {
			s, prefix := stats[nm], f.prefix(nm)
			sizes, rate := s.sizes, 0.0
			if final {
				// The whole run: every record over the time listened.
				rate = float64(s.total) / now.Sub(start).Seconds()
			} else if secs > 0 {
				var sum int
				for _, z := range sizes {
					sum += z
				}
				rate = float64(sum) / secs
			}
			if *asJSON {
				_ = json.NewEncoder(e.stdout).Encode(map[string]any{"topic": nm, "bytes_per_sec": rate, "messages": len(sizes), "total_bytes": s.total, "total_messages": s.count, "final": final})
			} else if final {
				if s.count > 0 {
					fmt.Fprintf(e.stdout, "%stotal: %s from %d messages (%s/s)\n", prefix, human(float64(s.total)), s.count, human(rate))
				} else {
					fmt.Fprintf(e.stdout, "%sno messages\n", prefix)
				}
			} else if len(sizes) == 0 {
				fmt.Fprintf(e.stdout, "%sno new messages\n", prefix)
			} else {
				lo, hi, sum := sizes[0], sizes[0], 0
				for _, z := range sizes {
					lo, hi, sum = min(lo, z), max(hi, z), sum+z
				}
				fmt.Fprintf(e.stdout, "%s%s/s from %d messages\n\tMessage size mean: %s min: %s max: %s\n", prefix, human(rate), len(sizes),
					human(float64(sum)/float64(len(sizes))), human(float64(lo)), human(float64(hi)))
			}
			s.sizes = s.sizes[:0]
		}
	}
	count := 0
	err = f.run(ctx, func(r sal.TapRecord) bool {
		s := stats[r.Topic]
		s.sizes = append(s.sizes, r.Size)
		s.total += int64(r.Size)
		s.count++
		count++
		return *n == 0 || count < *n
	}, func() { report(false) })
	if err != nil {
		return err
	}
	report(true)
	return f.end(*timeout, *n, count)
}

// human renders a byte count as ros2 does: B, KB, MB (powers of 1000).
func human(b float64) string {
	switch {
	case b >= 1e6:
		return fmt.Sprintf("%.2f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.2f KB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}
