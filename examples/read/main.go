package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

func main() {
	n := flag.Int("n", 10, "number of new records to read, over all topics")
	timing := flag.Bool("t", false, "time the run instead of printing each record")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: read [flags] COMPONENT TOPIC...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, flag.Arg(0), flag.Args()[1:], *n, *timing)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(1)
	}
}

// item is one record taken from a reader, at TAI rcv.
type item struct {
	topic *salxml.Topic
	rec   map[string]any
	rcv   float64
}

func run(ctx context.Context, compName string, names []string, n int, timing bool) error {
	defs, err := salxml.FromEnv()
	if err != nil {
		return err
	}
	comp, err := defs.Component(compName)
	if err != nil {
		return err
	}
	var tops []*salxml.Topic
	for _, name := range names {
		t, err := comp.FindTopic(name)
		if err != nil {
			return err
		}
		tops = append(tops, t)
	}
	bus, err := sal.Connect(ctx, sal.WithDefinitions(defs))
	if err != nil {
		return err
	}
	defer bus.Close()
	feed := func(context.Context) {}
	if bus.Embedded() {
		fmt.Fprintln(os.Stderr, "read: no other process can reach this in-process bus, so a built-in writer feeds it random records (run examples/localkafka to share a bus)")
		if feed, err = feeder(ctx, bus, comp, tops); err != nil {
			return err
		}
	}

	// SAL index 0: every index of an indexed component. MaxHistory 1: the
	// newest sample per SAL index, as ts_salobj reads events' history.
	in, err := bus.NewInstance(comp, 0, "")
	if err != nil {
		return err
	}
	defer in.Close()
	readers := make([]*topics.Reader, len(tops))
	var kafkaNames []string
	for i, t := range tops {
		if readers[i], err = in.Reader(t, topics.ReaderOptions{QueueLen: 1000, MaxHistory: 1}); err != nil {
			return err
		}
		kafkaNames = append(kafkaNames, t.KafkaName(bus.Config().Subname))
	}
	if err := in.Start(ctx); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "read: reading %s from %s\n", strings.Join(kafkaNames, ", "), strings.Join(bus.Config().Brokers, ","))

	// History first: Start returns once each reader has queued its
	// historical records, and those come out of the queue first.
	for i, r := range readers {
		t := tops[i]
		h := int(r.Stats().Historical)
		switch {
		case t.Kind != salxml.Event:
			fmt.Printf("history %s: none read (ts_salobj reads history for events only)\n", t)
		case h == 0:
			fmt.Printf("history %s: no historical data\n", t)
		}
		for range h {
			rec, err := r.Next(ctx)
			if err != nil {
				return err
			}
			snd, _ := rec["private_sndStamp"].(float64)
			fmt.Printf("history %s: salIndex %v: private_seqNum %v, data age %.3f s\n", t, rec["salIndex"], rec["private_seqNum"], topics.TAI()-snd)
		}
	}

	// New records, from one goroutine per reader (and the feeder's).
	items := make(chan item)
	rctx, rcancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { feed(rctx) })
	for i, r := range readers {
		wg.Go(func() {
			for {
				rec, err := r.Next(rctx)
				if err != nil {
					return
				}
				select {
				case items <- item{tops[i], rec, topics.TAI()}:
				case <-rctx.Done():
					return
				}
			}
		})
	}
	var lat []float64 // seconds
	var first, last time.Time
	count := 0
	for count < n && ctx.Err() == nil {
		select {
		case it := <-items:
			count++
			last = time.Now()
			if count == 1 {
				first = last
			}
			if !timing {
				fmt.Printf("read [%d] %s:%s\n", count, it.topic, fields(it.topic, it.rec))
			} else if snd, ok := it.rec["private_sndStamp"].(float64); ok {
				lat = append(lat, it.rcv-snd)
			}
		case <-ctx.Done():
		}
	}
	rcancel()
	wg.Wait()
	if timing {
		var lost uint64
		for _, r := range readers {
			lost += r.Stats().Lost
		}
		printTiming(count, last.Sub(first).Seconds(), lat, lost)
	}
	if count < n {
		return fmt.Errorf("interrupted: read %d of %d records", count, n)
	}
	return nil
}

// fields renders a record's fields in the topic's order.
func fields(t *salxml.Topic, rec map[string]any) string {
	var b strings.Builder
	for _, f := range t.Fields {
		fmt.Fprintf(&b, " %s=%v", f.Name, rec[f.Name])
	}
	return b.String()
}

// printTiming prints the -t summary. As the prototype, the rate counts the
// records after the first over the time from the first to the last; the
// standard deviation is the population's (numpy's std), p50 and p99 the
// elements at floor(N*p) of the sorted latencies.
func printTiming(n int, secs float64, lat []float64, lost uint64) {
	rate, mean, stdev := 0.0, 0.0, 0.0
	if n > 1 && secs > 0 {
		rate = float64(n-1) / secs
	}
	if len(lat) == 0 {
		lat = []float64{0}
	}
	slices.Sort(lat)
	for _, x := range lat {
		mean += x / float64(len(lat))
	}
	for _, x := range lat {
		stdev += (x - mean) * (x - mean) / float64(len(lat))
	}
	pct := func(p float64) float64 { return lat[min(int(float64(len(lat))*p), len(lat)-1)] * 1e3 }
	fmt.Printf("%d records read in %.3f s, %.1f records/sec; latency ms: mean %.3f, stdev %.3f, min %.3f, max %.3f, p50 %.3f, p99 %.3f; %d records lost (seqNum gaps).\n",
		n, secs, rate, mean*1e3, math.Sqrt(stdev)*1e3, lat[0]*1e3, lat[len(lat)-1]*1e3, pct(0.5), pct(0.99), lost)
}

// feeder is the built-in writer of the in-process bus: it writes one
// random record of each topic for SAL indexes 1 and 2 now (the history),
// and returns a function that writes random records for index 1, round
// robin over the topics, about 1000 a second until its ctx ends.
func feeder(ctx context.Context, bus *sal.Bus, comp *salxml.Component, tops []*salxml.Topic) (feed func(context.Context), err error) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	indexes := []int{2, 1}
	if !comp.Indexed {
		indexes = []int{0}
	}
	var ws []*topics.Writer
	for _, idx := range indexes {
		in, err := bus.NewInstance(comp, idx, "read-feeder")
		if err != nil {
			return nil, err
		}
		ws = ws[:0]
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
			if _, err := w.Write(ctx, validate.For(w.Topic()).Random(rng)); err != nil {
				return nil, err
			}
		}
	}
	// The instances are closed with the bus.
	return func(ctx context.Context) {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			w := ws[i%len(ws)]
			if w.WriteAsync(ctx, validate.For(w.Topic()).Random(rng), nil) != nil {
				return
			}
		}
	}, nil
}
