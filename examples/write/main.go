package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

func main() {
	n := flag.Int("n", 1000, "number of records to write")
	index := flag.Int("index", 0, "SAL index written (default 1 for an indexed component)")
	acks := flag.String("acks", "", "producer acks: 0, 1 or all (default $LSST_KAFKA_PRODUCER_WAIT_ACKS, else 1)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: write [flags] COMPONENT TOPIC")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	// SIGINT or SIGTERM stops the writes; the summary covers those acknowledged.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, flag.Arg(0), flag.Arg(1), *n, *index, *acks)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, compName, topicName string, n, index int, acks string) error {
	defs, err := salxml.FromEnv()
	if err != nil {
		return err
	}
	comp, err := defs.Component(compName)
	if err != nil {
		return err
	}
	topic, err := comp.FindTopic(topicName)
	if err != nil {
		return err
	}
	if index == 0 && comp.Indexed {
		index = 1
	}
	opts := []sal.Option{sal.WithDefinitions(defs)}
	if acks != "" {
		opts = append(opts, sal.WithAcks(acks))
	}
	bus, err := sal.Connect(ctx, opts...)
	if err != nil {
		return err
	}
	defer bus.Close()
	in, err := bus.NewInstance(comp, index, "")
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := in.Writer(topic)
	if err != nil {
		return err
	}
	if err := in.Start(ctx); err != nil {
		return err
	}

	gen := validate.For(topic)
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	var (
		mu       sync.Mutex
		lat      []time.Duration // of the records acknowledged
		firstErr error
		pending  sync.WaitGroup
	)
	start := time.Now()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		pending.Add(1)
		err := w.WriteAsync(ctx, gen.Random(rng), func(r topics.WriteResult, err error) {
			defer pending.Done()
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				lat = append(lat, r.Latency)
			} else if firstErr == nil {
				firstErr = err
			}
		})
		if err != nil {
			pending.Done()
			firstErr = err
			break
		}
	}
	pending.Wait()
	elapsed := time.Since(start)

	if len(lat) > 0 {
		slices.Sort(lat)
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		pct := func(p float64) float64 { return ms(lat[min(int(float64(len(lat))*p), len(lat)-1)]) }
		var sum time.Duration
		for _, l := range lat {
			sum += l
		}
		fmt.Printf("%d records sent, %.1f records/sec, %.2f ms avg latency, %.2f ms max latency, %.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th.\n",
			len(lat), float64(len(lat))/elapsed.Seconds(), ms(sum)/float64(len(lat)), ms(lat[len(lat)-1]),
			pct(0.5), pct(0.95), pct(0.99), pct(0.999))
	}
	switch {
	case firstErr != nil:
		return fmt.Errorf("%d of %d records acknowledged; first failure: %w", len(lat), n, firstErr)
	case len(lat) < n:
		return fmt.Errorf("interrupted after %d of %d records", len(lat), n)
	}
	return nil
}
