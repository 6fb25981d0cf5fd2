package topics_test

import (
	"context"
	"reflect"
	"testing"
	"unsafe"

	"github.com/lsst-sal/salgo/topics"
)

// TestReader_RecycleShared: a record that Get, Await or AwaitNewer
// returned is never decoded into again, whatever is handed back with
// Recycle: the program (or the SDK: Remote.HeartbeatAge,
// sal.SetSummaryState) may still be reading it. Records taken with Next
// and never exposed so are still reused.
func TestReader_RecycleShared(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	tp := comp.Telemetry("arrays")
	_, w := startWriter(t, d, comp, 1, tp)

	for _, c := range []struct {
		name string
		// expose takes record 1 (written, not yet taken) the way the
		// case says, recycles what it took with Next, and returns the
		// exposed record.
		expose func(ctx context.Context, r *topics.Reader, write func(int)) map[string]any
	}{
		{"Get while queued", func(ctx context.Context, r *topics.Reader, write func(int)) map[string]any {
			g := r.Get()
			rec := next(t, ctx, r) // the same map
			write(2)
			r.Recycle(rec) // no longer the newest: taken back at once
			r.Recycle(next(t, ctx, r))
			return g
		}},
		{"Get after Next", func(ctx context.Context, r *topics.Reader, write func(int)) map[string]any {
			rec := next(t, ctx, r)
			g := r.Get() // the same map
			r.Recycle(rec)
			return g
		}},
		{"Await", func(ctx context.Context, r *topics.Reader, write func(int)) map[string]any {
			rec := next(t, ctx, r)
			g, err := r.Await(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r.Recycle(rec)
			return g
		}},
		{"AwaitNewer", func(ctx context.Context, r *topics.Reader, write func(int)) map[string]any {
			r.Recycle(next(t, ctx, r))
			prev := r.Get()
			write(1) // record 1 again, a newer map
			rec := next(t, ctx, r)
			g, err := r.AwaitNewer(ctx, prev)
			if err != nil {
				t.Fatal(err)
			}
			r.Recycle(rec)
			return g
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxT(t)
			_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
			r := rs[0]
			want := uint64(0)
			write := func(i int) {
				t.Helper()
				v := float32(i)
				if _, err := w.Write(ctx, map[string]any{"float0": []float32{v, v, v, v, v}, "int0": []int32{int32(i), 0, 0, 0, 0}}); err != nil {
					t.Fatal(err)
				}
				want++
				waitFor(t, ctx, "the record delivered", func() bool { return r.Stats().Delivered == want })
			}
			write(1)
			g := c.expose(ctx, r, write)
			if g["float0"].([]float32)[0] != 1 {
				t.Fatalf("exposed record: float0 %v, want record 1", g["float0"])
			}
			kept := g["float0"].([]float32)
			// A program that recycles every record it takes with Next.
			maps := map[unsafe.Pointer]bool{}
			for i := 3; i < 9; i++ {
				write(i)
				rec := next(t, ctx, r)
				if rec["float0"].([]float32)[0] != float32(i) {
					t.Fatalf("record %d: float0 %v", i, rec["float0"])
				}
				maps[reflect.ValueOf(rec).UnsafePointer()] = true
				if same(rec, g) {
					t.Fatalf("record %d was decoded into the map %s returned", i, c.name)
				}
				r.Recycle(rec)
			}
			if kept[0] != 1 || g["float0"].([]float32)[0] != 1 || g["int0"].([]int32)[0] != 1 {
				t.Errorf("the record %s returned changed after later records: float0 %v int0 %v, want record 1's", c.name, g["float0"], g["int0"])
			}
			// Recycling still works for records nobody else saw: six
			// records in lockstep take two maps (the newest and the one
			// before it), three at most.
			if len(maps) > 3 {
				t.Errorf("6 records taken and handed back in lockstep took %d maps, want at most 3", len(maps))
			}
		})
	}
}
