package cli

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"
)

// Summary describes a sample of values: mean, population standard
// deviation (as numpy's std), extremes and percentiles.
type Summary struct {
	N                     int
	Mean, Stdev, Min, Max float64
	sorted                []float64
}

// Summarize summarizes xs, which it leaves as they are.
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if len(xs) == 0 {
		return s
	}
	var sum float64
	s.Min, s.Max = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		sum += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean = sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.Stdev = math.Sqrt(ss / float64(len(xs)))
	s.sorted = slices.Sorted(slices.Values(xs))
	return s
}

// Pct is the p-th quantile (0 <= p <= 1) as kafka-producer-perf-test
// takes it: the element at floor(N*p) of the sorted values; 0 for none.
func (s Summary) Pct(p float64) float64 {
	if len(s.sorted) == 0 {
		return 0
	}
	return s.sorted[min(int(float64(len(s.sorted))*p), len(s.sorted)-1)]
}

// Progress calls line once a second and, once the run has lasted 3
// seconds, prints what it returns as a line on w. The returned function
// stops it.
func Progress(w io.Writer, line func() string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for tick := 0; ; tick++ {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if s := line(); tick >= 2 {
				fmt.Fprintln(w, s)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
