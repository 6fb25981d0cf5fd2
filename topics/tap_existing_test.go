package topics_test

import (
	"slices"
	"testing"
	"time"
)

func TestExistingTopics(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	sub := d.Config().Subname
	prefix := "lsst." + sub + ".Example."
	status := comp.Telemetry("status").KafkaName(sub)
	before, err := d.ExistingTopics(ctxT(t), prefix)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(before, status) {
		t.Fatalf("%s listed before any instance created it: %v", status, before)
	}
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Writer(comp.Telemetry("status")); err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	// A real broker answers metadata from a cache it updates after the
	// topic is created: the new topic shows up there shortly after.
	ctx := ctxT(t)
	var after []string
	for {
		if after, err = d.ExistingTopics(ctx, prefix); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(after, status) || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Contains(after, status) || !slices.IsSorted(after) {
		t.Errorf("after Start: %v, want %s among them, sorted", after, status)
	}
	for _, n := range after {
		if len(n) < len(prefix) || n[:len(prefix)] != prefix {
			t.Errorf("%s does not start with %s", n, prefix)
		}
	}
	if none, err := d.ExistingTopics(ctxT(t), "lsst."+sub+".NoSuchComponent."); err != nil || len(none) != 0 {
		t.Errorf("a prefix no topic has: %v, %v", none, err)
	}
}
