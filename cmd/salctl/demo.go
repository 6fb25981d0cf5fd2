package main

// Built-in peers for the in-process bus: with no broker configured, no
// other process can reach this one's bus, so the verbs that need another
// party bring their own and say so.

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// demoIndex is the SAL index the built-in peers use for indexed components.
func demoIndex(c *salxml.Component, idx int) int {
	if c.Indexed && idx == 0 {
		return 1
	}
	return idx
}

// demoFeeder writes random records of some topics, round robin, at a rate.
type demoFeeder struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	insts  []*sal.Instance
}

func startDemoFeeder(ctx context.Context, bus *sal.Bus, ts []*salxml.Topic, hz float64) (*demoFeeder, error) {
	f := &demoFeeder{}
	byComp := map[string]*sal.Instance{}
	var writers []*sal.Writer
	enums := map[string]*cli.Enums{}
	for _, t := range ts {
		in := byComp[t.Component]
		if in == nil {
			c, err := bus.Component(t.Component)
			if err != nil {
				return nil, err
			}
			enums[t.Component] = cli.NewEnums(c)
			if in, err = bus.NewInstance(c, demoIndex(c, 0), "salctl-demo"); err != nil {
				return nil, err
			}
			byComp[t.Component] = in
			f.insts = append(f.insts, in)
		}
		w, err := in.Writer(t)
		if err != nil {
			f.close()
			return nil, err
		}
		writers = append(writers, w)
	}
	for _, in := range f.insts {
		if err := in.Start(ctx); err != nil {
			f.close()
			return nil, err
		}
	}
	var fctx context.Context
	fctx, f.cancel = context.WithCancel(context.Background())
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		tick := time.NewTicker(time.Duration(float64(time.Second) / hz))
		defer tick.Stop()
		for i := 0; ; i++ {
			w := writers[i%len(writers)]
			if err := w.WriteAsync(fctx, demoRecord(w.Topic(), enums[w.Topic().Component], rng), nil); err != nil {
				return
			}
			select {
			case <-fctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return f, nil
}

func (f *demoFeeder) close() {
	if f.cancel != nil {
		f.cancel()
	}
	f.wg.Wait()
	for _, in := range f.insts {
		in.Close()
	}
}

// demoRecord is a random record of t whose enumerated fields hold values
// of their enumerations.
func demoRecord(t *salxml.Topic, enums *cli.Enums, rng *rand.Rand) map[string]any {
	rec := validate.For(t).Random(rng)
	cli.EnumValues(t, enums, rec, rng.IntN)
	return rec
}

// demoCSC runs a CSC of the component that accepts every command: the
// state machine's own, and "Done" for the component's other commands. A
// command with a positive "duration" field (as Example's wait) is first
// acknowledged CMD_INPROGRESS and completes after that many seconds.
func demoCSC(ctx context.Context, bus *sal.Bus, c *salxml.Component, idx int, opts ...sal.CSCOption) (*sal.CSC, error) {
	opts = append([]sal.CSCOption{controller.WithVersion("salctl-demo"), controller.WithAllowMissing()}, opts...)
	csc, err := bus.NewCSC(c.Name, idx, opts...)
	if err != nil {
		return nil, err
	}
	for _, t := range c.TopicsOf(salxml.Command) {
		if t.Generic {
			continue
		}
		if err := csc.HandleFunc(t.Name(), func(ctx context.Context, cmd *sal.Command) error {
			d, _ := cmd.Data["duration"].(float64)
			if d <= 0 {
				return nil
			}
			dur := time.Duration(d * float64(time.Second))
			if err := cmd.InProgress(ctx, dur, "salctl-demo: waiting"); err != nil {
				return err
			}
			select {
			case <-time.After(dur):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}); err != nil {
			csc.Close()
			return nil, err
		}
	}
	if err := csc.Start(ctx); err != nil {
		csc.Close()
		return nil, err
	}
	return csc, nil
}

// demoSamples writes two random samples of t for each of the indices
// (one, 0, for a non-indexed component), so that history has something
// to show.
func demoSamples(ctx context.Context, bus *sal.Bus, c *salxml.Component, t *salxml.Topic, indices []int) error {
	rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	enums := cli.NewEnums(c)
	for _, idx := range indices {
		in, err := bus.NewInstance(c, idx, "salctl-demo")
		if err != nil {
			return err
		}
		w, err := in.Writer(t)
		if err == nil {
			err = in.Start(ctx)
		}
		for i := 0; i < 2 && err == nil; i++ {
			_, err = w.Write(ctx, demoRecord(t, enums, rng))
		}
		in.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
