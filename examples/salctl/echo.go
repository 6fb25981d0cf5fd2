package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// follower reads whole Kafka topics with the minimal client, decoding
// values with their writers' schemas from the registry.
type follower struct {
	e      *env
	verb   string
	names  []string
	known  []*salxml.Topic // the topics the definitions know (for the demo feeder)
	cons   *consumer
	reg    *registry
	bus    *sal.Bus // the in-process bus, when no broker is configured
	feeder *demoFeeder
}

// kafkaTopic resolves a full Kafka topic name (lsst.SUBNAME.C.T) or
// COMPONENT.TOPIC. The definitions are optional: a topic they do not know
// is read as named (the schema comes from the registry), with a warning.
func kafkaTopic(e *env, defs *salxml.Definitions, subname, arg string) (string, *salxml.Topic, error) {
	var comp, tname, kname string
	if strings.HasPrefix(arg, "lsst.") {
		parts := strings.SplitN(arg, ".", 4)
		if len(parts) != 4 || parts[2] == "" || parts[3] == "" {
			return "", nil, usagef("%q: want lsst.SUBNAME.COMPONENT.TOPIC or COMPONENT.TOPIC", arg)
		}
		comp, tname, kname = parts[2], parts[3], arg
	} else {
		var ok bool
		if comp, tname, ok = strings.Cut(arg, "."); !ok || comp == "" || tname == "" {
			return "", nil, usagef("%q: want COMPONENT.TOPIC (e.g. Example.scalars, Example.evt_summaryState) or a full Kafka topic name", arg)
		}
		kname = "lsst." + subname + "." + comp + "." + salName(tname)
	}
	if !defs.Has(comp) {
		return kname, nil, nil // schema-unaware: nothing to check against
	}
	c, err := defs.Component(comp)
	if err != nil {
		return "", nil, err
	}
	t, err := findTopic(c, tname)
	if err != nil {
		fmt.Fprintf(e.stderr, "salctl: warning: %v; reading %s anyway, with its writer's schema\n", err, kname)
		return kname, nil, nil
	}
	if strings.HasPrefix(arg, "lsst.") && t.KafkaName(subname) != kname {
		return kname, nil, nil // another subname: still readable, but not ours to feed
	}
	return t.KafkaName(subname), t, nil
}

func startFollower(e *env, verb string, args []string, back int64, verbose bool) (*follower, error) {
	defs, err := loadDefs()
	if err != nil {
		return nil, err
	}
	cfg, err := topics.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	f := &follower{e: e, verb: verb}
	for _, a := range args {
		kn, t, err := kafkaTopic(e, defs, cfg.Subname, a)
		if err != nil {
			return nil, err
		}
		if slices.Contains(f.names, kn) {
			return nil, usagef("topic %s given twice", kn)
		}
		f.names = append(f.names, kn)
		if t != nil {
			f.known = append(f.known, t)
		}
	}
	if len(cfg.Brokers) == 0 {
		peer := "a built-in writer publishes random records of " + strings.Join(topicNames(f.known), ", ") + " at 20 Hz"
		if len(f.known) == 0 {
			peer = "no topic named is in the definitions, so nothing will be written to it"
		}
		if f.bus, err = connect(e, verb, defs, verbose, peer); err != nil {
			return nil, err
		}
		cfg = f.bus.Config()
	} else if cfg.RegistryURL == "" {
		cfg.RegistryURL = topics.DefaultRegistryURL
	}
	f.reg = newRegistry(cfg.RegistryURL)
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	f.cons, err = newConsumer(ctx, wireFrom(cfg), f.names, back, func(msg string) {
		fmt.Fprintf(e.stderr, "salctl %s: %s\n", verb, msg)
	})
	if err != nil {
		f.close()
		return nil, err
	}
	var where []string
	for k, off := range f.cons.positions() {
		where = append(where, fmt.Sprintf("%s[%d]@%d", k.topic, k.part, off))
	}
	slices.Sort(where)
	if len(where) == 0 {
		where = []string{"nothing yet"}
	}
	// Tests wait for this line before writing.
	fmt.Fprintf(e.stderr, "salctl %s: listening on %s (from %s) at %s\n", verb, strings.Join(f.names, ", "), strings.Join(where, ", "), strings.Join(cfg.Brokers, ","))
	if f.bus != nil && len(f.known) > 0 {
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
	if f.cons != nil {
		f.cons.close()
	}
	if f.bus != nil {
		f.bus.Close()
	}
}

// run polls until ctx ends or handle returns false; tick (may be nil)
// runs about once a second. Errors are retried for 30 s.
func (f *follower) run(ctx context.Context, handle func(rawRecord) bool, tick func()) error {
	var failingSince time.Time
	var lastTick = time.Now()
	var lastWarn time.Time
	for {
		recs, err := f.cons.poll(ctx, 250*time.Millisecond)
		for _, r := range recs {
			if !handle(r) {
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if time.Since(failingSince) > 30*time.Second {
				return err
			}
			if time.Since(lastWarn) > 5*time.Second {
				fmt.Fprintf(f.e.stderr, "salctl %s: %v; retrying\n", f.verb, err)
				lastWarn = time.Now()
			}
		} else {
			failingSince = time.Time{}
		}
		if tick != nil && time.Since(lastTick) >= time.Second {
			lastTick = time.Now()
			tick()
		}
	}
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

func cmdEcho(e *env, args []string) error {
	fs := flags(e, "echo")
	n := fs.Int("n", 0, "stop after COUNT records (0: until interrupted)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	asJSON := fs.Bool("json", false, "print one JSON object per record")
	last := fs.Int64("last", 0, "first print the last N records of each partition")
	only := fs.String("fields", "", "print only these fields (comma separated)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 1, -1, "TOPIC..."); err != nil {
		return err
	}
	if *n < 0 || *last < 0 {
		return usagef("-n and -last must be >= 0")
	}
	var fields []string
	if *only != "" {
		fields = strings.Split(*only, ",")
	}
	f, err := startFollower(e, "echo", pos, *last, *verbose)
	if err != nil {
		return err
	}
	defer f.close()
	ctx, cancel := withTimeout(e.ctx, *timeout)
	defer cancel()
	count := 0
	err = f.run(ctx, func(r rawRecord) bool {
		printRecord(ctx, e, f.reg, r, *asJSON, fields)
		count++
		return *n == 0 || count < *n
	}, nil)
	if err != nil {
		return err
	}
	if *n > 0 && count < *n {
		if e.ctx.Err() != nil {
			return fmt.Errorf("interrupted after %d of %d records", count, *n)
		}
		return fmt.Errorf("timeout after %s: %d of %d records", *timeout, count, *n)
	}
	return nil
}

func printRecord(ctx context.Context, e *env, reg *registry, r rawRecord, asJSON bool, fields []string) {
	ws, val, err := reg.decodeValue(ctx, r.Value)
	rec, _ := val.(*record)
	if rec != nil && len(fields) > 0 {
		sub := &record{}
		for _, fn := range fields {
			sub.names, sub.values = append(sub.names, fn), append(sub.values, rec.get(fn))
		}
		rec = sub
	}
	if asJSON {
		var b strings.Builder
		fmt.Fprintf(&b, `{"topic":%q,"partition":%d,"offset":%d,"timestamp":%q`, r.Topic, r.Partition, r.Offset, r.Timestamp.UTC().Format(time.RFC3339Nano))
		if ws != nil {
			fmt.Fprintf(&b, `,"schema_id":%d,"schema":%q`, ws.id, ws.typ.name)
		}
		if len(r.Key) > 0 {
			fmt.Fprintf(&b, `,"key":%s`, strconv.Quote(string(r.Key)))
		}
		if err != nil {
			fmt.Fprintf(&b, `,"error":%q,"raw":%q`, err.Error(), rawText(r.Value))
		} else {
			b.WriteString(`,"value":`)
			if rec != nil {
				jsonValue(&b, rec)
			} else {
				jsonValue(&b, val)
			}
		}
		b.WriteString("}\n")
		_, _ = fmt.Fprint(e.stdout, b.String())
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s [%d] offset %d", r.Topic, r.Partition, r.Offset)
	if ws != nil {
		fmt.Fprintf(&b, ", schema id %d (%s)", ws.id, ws.typ.name)
	}
	b.WriteByte('\n')
	switch {
	case err != nil:
		fmt.Fprintf(&b, "cannot decode: %v\nraw: %s\n", err, rawText(r.Value))
	case rec != nil:
		for i, n := range rec.names {
			fmt.Fprintf(&b, "%s: %s\n", n, textValue(rec.values[i]))
		}
	default:
		fmt.Fprintf(&b, "%s\n", textValue(val))
	}
	_, _ = fmt.Fprint(e.stdout, b.String())
}

// rawText shows an undecodable value: as text if printable, else hex.
func rawText(v []byte) string {
	printable := true
	for _, c := range v {
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			printable = false
			break
		}
	}
	if printable {
		return strconv.Quote(string(v))
	}
	if len(v) > 64 {
		return fmt.Sprintf("%x... (%d bytes)", v[:64], len(v))
	}
	return fmt.Sprintf("%x", v)
}

// ---------------------------------------------------------------------
// hz and bw

// stamp is when a record was published: its private_sndStamp (TAI
// seconds), else the Kafka record timestamp.
func stamp(ctx context.Context, reg *registry, r rawRecord) float64 {
	if _, v, err := reg.decodeValue(ctx, r.Value); err == nil {
		if rec, ok := v.(*record); ok {
			if s, ok := rec.get("private_sndStamp").(float64); ok && s > 0 {
				return s
			}
		}
	}
	return float64(r.Timestamp.UnixNano()) / 1e9
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
	var sum float64
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, d := range h.deltas {
		sum += d
		lo, hi = min(lo, d), max(hi, d)
	}
	mean := sum / float64(len(h.deltas))
	for _, d := range h.deltas {
		sd += (d - mean) * (d - mean)
	}
	sd = math.Sqrt(sd / float64(len(h.deltas)))
	if mean > 0 {
		rate = 1 / mean
	}
	return rate, lo, hi, sd, true
}

func cmdHz(e *env, args []string) error {
	fs := flags(e, "hz")
	n := fs.Int("n", 0, "stop after COUNT records (0: until interrupted)")
	timeout := fs.Duration("timeout", 0, "stop after this long (0: no limit)")
	window := fs.Int("window", 10000, "number of intervals averaged")
	asJSON := fs.Bool("json", false, "print JSON lines")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 1, -1, "TOPIC..."); err != nil {
		return err
	}
	f, err := startFollower(e, "hz", pos, 0, *verbose)
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
			s := stats[nm]
			prefix := ""
			if len(f.names) > 1 {
				prefix = nm + ": "
			}
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
	err = f.run(ctx, func(r rawRecord) bool {
		stats[r.Topic].add(stamp(ctx, f.reg, r), *window)
		count++
		return *n == 0 || count < *n
	}, func() { report(false) })
	if err != nil {
		return err
	}
	report(true)
	return nil
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
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 1, -1, "TOPIC..."); err != nil {
		return err
	}
	f, err := startFollower(e, "bw", pos, 0, *verbose)
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
			s := stats[nm]
			prefix := ""
			if len(f.names) > 1 {
				prefix = nm + ": "
			}
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
	err = f.run(ctx, func(r rawRecord) bool {
		s := stats[r.Topic]
		s.sizes = append(s.sizes, len(r.Value))
		s.total += int64(len(r.Value))
		s.count++
		count++
		return *n == 0 || count < *n
	}, func() { report(false) })
	if err != nil {
		return err
	}
	report(true)
	return nil
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
