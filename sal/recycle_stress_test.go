package sal_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
)

// touch reads every field of rec, slowly (formatting each value), as a
// program reading a record it was given does.
func touch(rec map[string]any) int {
	n := 0
	for k, v := range rec {
		n += len(k) + len(fmt.Sprint(v))
	}
	return n
}

// TestRecycleStress: a program that takes every heartbeat and
// summaryState record of a Remote with Next and hands it back with
// Recycle, as documented, while other goroutines read the newest records
// with Get, Await and Remote.HeartbeatAge, and SetSummaryState and
// WaitForSummaryState take the CSC back and forth (each command reads the
// heartbeat, each helper Await's summaryState record). A record any of
// them was given must never be decoded into again: under -race a reused
// record is a data race, and without it the map can be written while it
// is read ("concurrent map read and map write"). Bounded in count: the
// heartbeats are written by a writer of their own, at most maxFlood,
// while the CSC goes through the cycles.
func TestRecycleStress(t *testing.T) {
	const (
		cycles   = 6
		maxFlood = 20000
		maxGets  = 200000
	)
	b := newBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	ctx := ctxT(t)
	comp, err := b.Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.NewInstance(comp, 1, "flood")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	w, err := in.Writer(comp.Event("heartbeat"))
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	hb, ss := r.MustEvent("heartbeat"), r.MustEvent("summaryState")

	var wg sync.WaitGroup
	cycled := make(chan struct{}) // the CSC went through its cycles
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	var taken [2]int
	for i, rd := range []*topics.Reader{hb, ss} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				rec, err := rd.Next(stop)
				if err != nil {
					return
				}
				touch(rec)
				taken[i]++
				rd.Recycle(rec)
			}
		}()
	}
	var gets, awaits int
	wg.Add(2)
	go func() {
		defer wg.Done()
		for ; gets < maxGets; gets++ {
			select {
			case <-cycled:
				return
			default:
			}
			r.HeartbeatAge()
			if rec := hb.Get(); rec != nil {
				touch(rec)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for ; awaits < maxGets; awaits++ {
			select {
			case <-cycled:
				return
			default:
			}
			for _, rd := range []*topics.Reader{ss, hb} {
				rec, err := rd.Await(stop)
				if err != nil {
					t.Error(err)
					return
				}
				touch(rec)
			}
		}
	}()
	flooded := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ; flooded < maxFlood; flooded++ {
			select {
			case <-cycled:
				return
			default:
			}
			var err error
			if flooded%50 == 49 {
				_, err = w.Write(ctx, map[string]any{"heartbeat": false})
			} else {
				err = w.WriteAsync(ctx, map[string]any{"heartbeat": false}, nil)
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()

	for i := range cycles {
		for _, s := range []sal.State{sal.Enabled, sal.Standby} {
			if _, err := sal.SetSummaryState(ctx, r, s, ""); err != nil {
				t.Fatalf("cycle %d: SetSummaryState(%s): %v", i, s.Name(), err)
			}
			if got, err := sal.WaitForSummaryState(ctx, r, s); err != nil || got != s {
				t.Fatalf("cycle %d: WaitForSummaryState(%s): %v, %v", i, s.Name(), got, err)
			}
		}
	}
	close(cycled)
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	t.Logf("%d cycles; %d heartbeats flooded; %d Get and %d Await rounds; %d heartbeat and %d summaryState records taken and recycled",
		cycles, flooded, gets, awaits, taken[0], taken[1])
}
