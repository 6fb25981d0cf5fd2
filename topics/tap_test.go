package topics_test

import (
	"context"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/topics"
)

func TestTap_SchemaUnaware(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	in, _ := d.NewInstance(comp, 3, "")
	w, _ := in.Writer(comp.Telemetry("status"))
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := w.Write(ctxT(t), map[string]any{"mode": int32(2), "position": []float64{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := comp.Telemetry("status").KafkaName(d.Config().Subname)
	var got map[string]any
	_ = d.Tap(ctx, []string{name}, 1, func(r topics.TapRecord) {
		if r.Err != nil {
			t.Error(r.Err)
		}
		got = r.Value
		cancel()
	})
	if got == nil || got["mode"] != 2 || len(got["position"].([]any)) != 3 || got["salIndex"] != 3 {
		t.Errorf("tap got %v", got)
	}
}
