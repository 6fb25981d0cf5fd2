package topics_test

import (
	"testing"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestStart_RightAfterAnother: Instances started one after another in one
// Domain, each creating topics the next one reads, all start: the
// Domain's Kafka client must not trust its cached "topic does not exist"
// from the listing done before the topic was created (a Remote started
// right after a Controller, or a second component).
func TestStart_RightAfterAnother(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	start := func(readers, writers []*salxml.Topic) {
		t.Helper()
		in, err := d.NewInstance(comp, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		for _, tp := range readers {
			if _, err := in.Reader(tp, topics.ReaderOptions{MaxHistory: 1}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tp := range writers {
			if _, err := in.Writer(tp); err != nil {
				t.Fatal(err)
			}
		}
		if err := in.Start(ctx); err != nil {
			t.Fatalf("start with readers %v, writers %v: %v", readers, writers, err)
		}
	}
	ev := comp.Event("summaryState")
	start(nil, []*salxml.Topic{ev})                        // creates the topic
	start([]*salxml.Topic{ev}, nil)                        // reads it
	start([]*salxml.Topic{comp.Telemetry("status")}, nil)  // creates and reads
	start([]*salxml.Topic{comp.Command("start"), ev}, nil) // again, with one known
	start([]*salxml.Topic{comp.Event("heartbeat")}, []*salxml.Topic{comp.Event("errorCode")})
}
