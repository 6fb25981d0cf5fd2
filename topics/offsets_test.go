package topics_test

import (
	"strings"
	"testing"
)

// TestOffsets counts the records written to a topic by its partitions'
// offsets, and names a topic that does not exist.
func TestOffsets(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	sub := d.Config().Subname
	tp := comp.Telemetry("status")
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	w, err := in.Writer(tp)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := w.Write(ctxT(t), map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	offs, err := d.Offsets(ctxT(t), tp.KafkaName(sub))
	if err != nil {
		t.Fatal(err)
	}
	if len(offs) != 1 || offs[0].Topic != tp.KafkaName(sub) || offs[0].Partition != 0 || offs[0].Low != 0 || offs[0].High != 3 || offs[0].Records() != 3 {
		t.Errorf("Offsets(%s) = %+v, want one partition holding offsets 0 to 3", tp.KafkaName(sub), offs)
	}
	missing := "lsst." + sub + ".Example.noSuchTopic"
	if _, err := d.Offsets(ctxT(t), missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Offsets of a missing topic: %v, want an error naming it", err)
	}
	if offs, err := d.Offsets(ctxT(t)); err != nil || offs != nil {
		t.Errorf("Offsets of no topic: %v, %v", offs, err)
	}
}
