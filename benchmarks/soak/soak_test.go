package main

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSoak_Smoke runs the soak program for 3 s at a low rate (on the
// embedded broker, or the LSST_* one): every record arrives once, every
// command completes, a report line and the summary are printed. The
// memory check is off: 3 s is no baseline.
func TestSoak_Smoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the soak smoke test runs for 3 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	code, err := run(ctx, []string{"-duration", "3s", "-every", "1s", "-rate", "200", "-cmd-rate", "20", "-max-growth", "0", "-xml", ""}, &out, &errs)
	t.Log("\n" + out.String())
	if err != nil || code != 0 {
		t.Fatalf("exit %d, err %v; stderr:\n%s", code, err, errs.String())
	}
	for _, want := range []string{"Example.", " 0 lost ", " 0 duplicated", "ok   no command failed (0)", "heap-live"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestSoak_Usage: bad flags are refused with exit code 2.
func TestSoak_Usage(t *testing.T) {
	for _, args := range [][]string{{"-rate", "0"}, {"-nosuchflag"}, {"extra"}} {
		var out, errs bytes.Buffer
		if code, err := run(context.Background(), args, &out, &errs); code != 2 || err == nil {
			t.Errorf("%q: exit %d, err %v, want 2 and an error", args, code, err)
		}
	}
}

// TestPace: the pacer makes exactly as many calls as the elapsed time
// calls for, in order, whatever the wake-ups.
func TestPace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now().Add(-time.Second) // 1 s behind: the first wake catches up
	var got []uint64
	var late atomic.Uint64
	pace(ctx, start, time.Millisecond, &late, func(i uint64) {
		got = append(got, i)
		if len(got) == 1500 {
			cancel()
		}
	})
	for i, v := range got {
		if v != uint64(i+1) {
			t.Fatalf("call %d has index %d", i, v)
		}
	}
	if len(got) < 1000 {
		t.Errorf("%d calls, want at least the 1000 already due", len(got))
	}
	if late.Load() == 0 {
		t.Errorf("the catch-up was not counted as late")
	}
}

func TestHist(t *testing.T) {
	var h hist
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, time.Millisecond}} {
		got := h.quantile(c.q)
		if got < c.want*99/100 || got > c.want*102/100 {
			t.Errorf("quantile %g = %s, want %s within 2%%", c.q, got, c.want)
		}
	}
	if h.max != time.Millisecond || h.n != 1000 {
		t.Errorf("max %s n %d", h.max, h.n)
	}
}
