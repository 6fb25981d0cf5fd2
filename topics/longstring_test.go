package topics_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestWriter_LongStrings: by default a writer refuses a string longer than
// its IDL_Size, naming the field and the bound; with UnboundedStrings it
// sends it, as ts_salobj does, and readers of every kind deliver it whole,
// counting the violation.
func TestWriter_LongStrings(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	for _, unbounded := range []bool{false, true} {
		cfg := testConfig(t, salxml.Embedded())
		cfg.UnboundedStrings = unbounded
		d, err := topics.NewDomain(ctxT(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		comp := example(t, d)
		for _, tp := range []*salxml.Topic{comp.Command("setScalars"), comp.Event("scalars"), comp.Telemetry("scalars")} {
			rin, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
			win, w := startWriter(t, d, comp, 1, tp)
			rec := map[string]any{"string0": long}
			var err error
			if tp.Kind == salxml.Command {
				_, err = topics.WriteSeq(ctxT(t), w, rec, 5)
			} else {
				_, err = w.Write(ctxT(t), rec)
			}
			if !unbounded {
				want := "validate: Example." + tp.SALName + ": field string0: string length 10000 bytes exceeds bound 20"
				if !errors.Is(err, validate.ErrStringLength) || err.Error() != want {
					t.Errorf("%s: write %v, want %s", tp, err, want)
				}
			} else {
				if err != nil {
					t.Fatalf("%s with UnboundedStrings: %v", tp, err)
				}
				got, err := rs[0].Next(ctxT(t))
				if err != nil {
					t.Fatal(err)
				}
				if got["string0"] != long {
					t.Errorf("%s: read %d bytes of string0, want all 10000", tp, len(got["string0"].(string)))
				}
				if s := rs[0].Stats(); s.Violations != 1 || s.Delivered != 1 {
					t.Errorf("%s: reader stats %+v: want the record delivered and counted", tp, s)
				}
			}
			rin.Close()
			win.Close()
		}
		d.Close()
	}
}
