package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lsst-sal/salgo/examples/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

const usageText = `usage: read COMPONENT TOPIC... [flags]

Reports the historical sample per SAL index of each event topic, then prints
each new record (JSON lines with -json), or with -t one timing summary:
  N records read in S s, R records/sec; latency ms: mean, stdev, min, max, p50, p99;
  L records lost (seqNum gaps).
` + cli.TopicNames + `
` + cli.ExitStatusHelp + `
flags:
`

func main() {
	cli.Main("read", true, func(ctx context.Context, args []string) error {
		return run(ctx, args, os.Stdout, os.Stderr)
	})
}

type options struct {
	index   int
	n       int
	timing  bool
	history int
	json    bool
	timeout time.Duration
}

// item is one record taken from a reader.
type item struct {
	topic  *salxml.Topic
	reader *topics.Reader
	rec    map[string]any
	rcv    float64 // TAI when taken from the reader
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText); fs.PrintDefaults() }
	var o options
	fs.IntVar(&o.index, "index", 0, "SAL index to read (0: every index of an indexed component)")
	fs.IntVar(&o.n, "n", 10, "number of new records to read, over all topics (0: until interrupted)")
	fs.BoolVar(&o.timing, "t", false, "time the run instead of printing each record")
	fs.IntVar(&o.history, "history", -1, "look back this many records for the newest sample per SAL index of each event topic of an indexed component (default $LSST_MAX_HISTORY_READ, else 500); 0: no history")
	fs.BoolVar(&o.json, "json", false, "print records (and the -t summary) as JSON lines")
	fs.DurationVar(&o.timeout, "timeout", 0, "stop after this long (0: no limit)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	version := cli.VersionFlag(fs)
	pos, err := cli.ParseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *version {
		return cli.PrintVersion(stdout, "read")
	}
	if len(pos) < 2 {
		return cli.Usagef("want COMPONENT TOPIC..., got %d arguments %q", len(pos), pos)
	}
	if o.n < 0 || o.history < -1 || o.timeout < 0 {
		return cli.Usagef("-n, -history and -timeout must be >= 0")
	}
	defs, err := salxml.FromEnv()
	if err != nil {
		return err
	}
	comp, err := cli.FindComponent(defs, pos[0], "; set TS_XML_DIR for ts_xml's")
	if err != nil {
		return err
	}
	var tops []*salxml.Topic
	for _, name := range pos[1:] {
		t, err := cli.FindTopic(comp, name, cli.ListedBySalctl(comp))
		if err != nil {
			return err
		}
		if slices.Contains(tops, t) {
			return cli.Usagef("topic %s given twice", t.SALName)
		}
		tops = append(tops, t)
	}
	if err := comp.CheckIndex(o.index); err != nil {
		return cli.Usagef("-index %d: %v", o.index, err)
	}

	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	log := slog.New(&quietHandler{Handler: cli.LogHandler(stderr, *verbose), last: map[string]time.Time{}, skipped: map[string]int{}})
	var opts []sal.Option
	if o.history > 0 && comp.Indexed {
		// The look-back of an indexed component's history is the bus's
		// LSST_MAX_HISTORY_READ; -history overrides it.
		opts = append(opts, sal.WithMaxHistoryRead(o.history))
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	bus, err := cli.Connect(ctx, defs, log, opts...)
	if err != nil {
		return err
	}
	defer bus.Close()

	var feed *feeder
	if bus.Embedded() {
		fmt.Fprintf(stderr, "read: no broker configured (%s unset): no other process can reach this in-process bus, so a built-in writer feeds random %s records (run examples/localkafka to share a bus)\n",
			topics.EnvBroker, strings.Join(names(tops), ", "))
		if feed, err = newFeeder(cctx, bus, comp, tops, o.index); err != nil {
			return err
		}
		defer feed.close()
	}

	in, err := bus.NewInstance(comp, o.index, "")
	if err != nil {
		return err
	}
	defer in.Close()
	readers := make([]*topics.Reader, len(tops))
	for i, t := range tops {
		// MaxHistory 1 delivers the newest sample per SAL index, looking
		// back LSST_MAX_HISTORY_READ records (set by -history above) for an
		// indexed component, and one record for a non-indexed one.
		ro := topics.ReaderOptions{QueueLen: 1000}
		if o.history != 0 {
			ro.MaxHistory = 1
		}
		if readers[i], err = in.Reader(t, ro); err != nil {
			return err
		}
	}
	if err := in.Start(cctx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "read: reading %s from %s\n", strings.Join(kafkaNames(tops, bus.Config().Subname), ", "), strings.Join(bus.Config().Brokers, ","))

	out := newPrinter(stdout, o.json)
	// History first: Start returns once each reader has queued its
	// historical records, and those come out of the queue first.
	for i, r := range readers {
		t := tops[i]
		if t.Kind != salxml.Event {
			if !o.json {
				fmt.Fprintf(stdout, "history %s: none read (ts_salobj reads history for events only)\n", t)
			}
			continue
		}
		if o.history == 0 {
			continue
		}
		h := int(r.Stats().Historical)
		if h == 0 && !o.json {
			fmt.Fprintf(stdout, "history %s: no historical data\n", t)
		}
		for range h {
			rec, err := r.Next(ctx)
			if err != nil {
				return err
			}
			out.history(t, rec, topics.TAI(), o.timing)
		}
	}
	if feed != nil {
		feed.startLive()
	}

	items := make(chan item, 1024)
	var wg sync.WaitGroup
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	for i, r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rec, err := r.Next(rctx)
				if err != nil {
					return
				}
				select {
				case items <- item{topic: tops[i], reader: r, rec: rec, rcv: topics.TAI()}:
				case <-rctx.Done():
					return
				}
			}
		}()
	}

	var count atomic.Int64
	of := ""
	if o.n > 0 {
		of = "/" + strconv.Itoa(o.n)
	}
	var prev int64
	stopProgress := cli.Progress(stderr, func() string {
		now := count.Load()
		defer func() { prev = now }()
		return fmt.Sprintf("read: %d%s records, %d records/sec (last second)", now, of, now-prev)
	})
	var (
		lat         []float64
		first, last time.Time
	)
loop:
	for o.n == 0 || int(count.Load()) < o.n {
		select {
		case it := <-items:
			now := time.Now()
			if count.Add(1) == 1 {
				first = now
			}
			last = now
			if o.timing {
				if snd, ok := it.rec["private_sndStamp"].(float64); ok {
					lat = append(lat, it.rcv-snd)
				}
			} else {
				out.record(it.topic, it.rec, int(count.Load()))
			}
			// Done with the record: the reader decodes a later one into it.
			it.reader.Recycle(it.rec)
		case <-ctx.Done():
			break loop
		}
	}
	rcancel()
	wg.Wait()
	stopProgress()
	if feed != nil {
		feed.close()
	}

	var st topics.ReaderStats
	for _, r := range readers {
		s := r.Stats()
		st.Lost += s.Lost
		st.Overflow += s.Overflow
		st.OutOfOrder += s.OutOfOrder
		st.Undecodable += s.Undecodable
		st.Filtered += s.Filtered
	}
	n := int(count.Load())
	if o.timing {
		printTiming(stdout, o.json, n, last.Sub(first).Seconds(), lat, st)
	}
	if st.Overflow+st.OutOfOrder+st.Undecodable > 0 {
		fmt.Fprintf(stderr, "read: also dropped: %d queue overflow, %d out of order, %d undecodable\n", st.Overflow, st.OutOfOrder, st.Undecodable)
	}
	if o.n > 0 && n < o.n {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("timeout after %s: read %d of %d records", o.timeout, n, o.n)
		}
		return fmt.Errorf("interrupted: read %d of %d records", n, o.n)
	}
	return nil
}

// timing is the -t summary; its JSON form is what -t -json prints.
type timing struct {
	Records    int     `json:"records"`
	Seconds    float64 `json:"seconds"`
	RecordsSec float64 `json:"records_per_sec"`
	MeanMs     float64 `json:"latency_mean_ms"`
	StdevMs    float64 `json:"latency_stdev_ms"`
	MinMs      float64 `json:"latency_min_ms"`
	MaxMs      float64 `json:"latency_max_ms"`
	P50Ms      float64 `json:"latency_p50_ms"`
	P99Ms      float64 `json:"latency_p99_ms"`
	Lost       uint64  `json:"lost"`
}

// printTiming prints the -t summary. As the prototype, the rate counts the
// records after the first over the time from the first to the last.
func printTiming(w io.Writer, asJSON bool, n int, secs float64, lat []float64, st topics.ReaderStats) {
	t := timing{Records: n, Seconds: secs, Lost: st.Lost}
	if n > 1 && secs > 0 {
		t.RecordsSec = float64(n-1) / secs
	}
	if len(lat) > 0 {
		s := cli.Summarize(lat)
		t.MeanMs, t.StdevMs = s.Mean*1e3, s.Stdev*1e3
		t.MinMs, t.MaxMs = s.Min*1e3, s.Max*1e3
		t.P50Ms, t.P99Ms = s.Pct(0.5)*1e3, s.Pct(0.99)*1e3
	}
	if asJSON {
		_ = json.NewEncoder(w).Encode(t)
		return
	}
	fmt.Fprintf(w, "%d records read in %.3f s, %.1f records/sec; latency ms: mean %.3f, stdev %.3f, min %.3f, max %.3f, p50 %.3f, p99 %.3f; %d records lost (seqNum gaps).\n",
		t.Records, t.Seconds, t.RecordsSec, t.MeanMs, t.StdevMs, t.MinMs, t.MaxMs, t.P50Ms, t.P99Ms, t.Lost)
}

// printer writes records as text or JSON lines, fields in wire order.
type printer struct {
	w    io.Writer
	json bool
}

func newPrinter(w io.Writer, asJSON bool) *printer { return &printer{w: w, json: asJSON} }

func (p *printer) history(t *salxml.Topic, rec map[string]any, now float64, timingOnly bool) {
	snd, _ := rec["private_sndStamp"].(float64)
	if p.json {
		fmt.Fprintf(p.w, `{"topic":%q,"historical":true,"data":%s}`+"\n", t.String(), cli.FieldsJSON(t, rec))
		return
	}
	idx := ""
	if t.Indexed {
		idx = fmt.Sprintf(" salIndex %v:", rec["salIndex"])
	}
	fmt.Fprintf(p.w, "history %s:%s private_seqNum %v, private_sndStamp %.6f, data age %.3f s\n", t, idx, rec["private_seqNum"], snd, now-snd)
	if !timingOnly {
		fmt.Fprintf(p.w, "  %s\n", cli.FieldsJSON(t, rec))
	}
}

func (p *printer) record(t *salxml.Topic, rec map[string]any, i int) {
	if p.json {
		fmt.Fprintf(p.w, `{"topic":%q,"historical":false,"data":%s}`+"\n", t.String(), cli.FieldsJSON(t, rec))
		return
	}
	fmt.Fprintf(p.w, "read [%d] %s: %s\n", i, t, cli.FieldsJSON(t, rec))
}

// feeder is the built-in writer used on the in-process bus: one
// historical sample per SAL index before the reader starts, then a steady
// stream of random records.
type feeder struct {
	in      *topics.Instance
	writers []*topics.Writer
	rng     *rand.Rand
	cancel  context.CancelFunc
	ctx     context.Context
	wg      sync.WaitGroup
	once    sync.Once
}

func newFeeder(ctx context.Context, bus *sal.Bus, comp *salxml.Component, tops []*salxml.Topic, index int) (*feeder, error) {
	live := index
	hist := []int{index}
	if comp.Indexed && index == 0 {
		live, hist = 1, []int{1, 2}
	}
	f := &feeder{rng: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	for _, idx := range hist {
		in, err := bus.NewInstance(comp, idx, "read-feeder")
		if err != nil {
			return nil, err
		}
		var ws []*topics.Writer
		for _, t := range tops {
			w, err := in.Writer(t)
			if err != nil {
				return nil, err
			}
			ws = append(ws, w)
		}
		if err := in.Start(ctx); err != nil {
			return nil, err
		}
		for _, w := range ws {
			if _, err := w.Write(ctx, validate.For(w.Topic()).Random(f.rng)); err != nil {
				return nil, err
			}
		}
		if idx == live {
			f.in, f.writers = in, ws
		} else {
			defer in.Close()
		}
	}
	return f, nil
}

// startLive writes random records, round robin over the topics, in bursts
// of 10 every 5 ms (about 2000 records/sec) until close.
func (f *feeder) startLive() {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; {
			select {
			case <-f.ctx.Done():
				return
			case <-t.C:
			}
			for range 10 {
				w := f.writers[i%len(f.writers)]
				i++
				if err := w.WriteAsync(f.ctx, validate.For(w.Topic()).Random(f.rng), nil); err != nil {
					return
				}
			}
		}
	}()
}

func (f *feeder) close() {
	f.once.Do(func() {
		f.cancel()
		f.wg.Wait()
		f.in.Close()
	})
}

// quietHandler passes each distinct log message at most once every 5
// seconds, with the number suppressed in between: the SDK warns each time
// a reader's queue refills past 10 records, which a burst of records from
// one fetch does many times a second.
type quietHandler struct {
	slog.Handler
	mu      sync.Mutex
	last    map[string]time.Time
	skipped map[string]int
}

func (h *quietHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	now := time.Now()
	if t, ok := h.last[r.Message]; ok && now.Sub(t) < 5*time.Second {
		h.skipped[r.Message]++
		h.mu.Unlock()
		return nil
	}
	n := h.skipped[r.Message]
	h.last[r.Message], h.skipped[r.Message] = now, 0
	h.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", n))
	}
	return h.Handler.Handle(ctx, r)
}

func names(tops []*salxml.Topic) []string {
	out := make([]string, len(tops))
	for i, t := range tops {
		out[i] = t.String()
	}
	return out
}

func kafkaNames(tops []*salxml.Topic, subname string) []string {
	out := make([]string, len(tops))
	for i, t := range tops {
		out[i] = t.KafkaName(subname)
	}
	return out
}
