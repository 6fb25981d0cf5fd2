package kafka_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/internal/kafka"
)

// TestConsumer_PauseResume: a partition paused in the middle of a poll
// hands over none of its records while the other partition flows, even
// records fetched before the pause; resumed at the offset of the first
// record its reader skipped, it hands over every record from there, in
// order.
func TestConsumer_PauseResume(t *testing.T) {
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const topic = "lsst.test.pause"
	p, err := kafka.NewProducer(kafka.Config{Brokers: c.Brokers(), Acks: "1", NoClientMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.EnsureTopics(ctx, []kafka.TopicSpec{{Name: topic, Partitions: 2}}); err != nil {
		t.Fatal(err)
	}
	raw, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	send := func(part int32, from, to int) {
		t.Helper()
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: part, Value: fmt.Appendf(nil, "%d", i)})
		}
		if err := raw.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	send(0, 0, 10)
	send(1, 100, 110)

	cons, err := kafka.NewConsumer(kafka.Config{Brokers: c.Brokers(), NoClientMetrics: true},
		map[string]map[int32]kafka.Start{topic: {0: {Offset: 0}, 1: {Offset: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var got [2][]string
	paused, skip := false, true
	poll := func(what string, until func() bool) {
		t.Helper()
		for !until() {
			if err := cons.Poll(ctx, func(r *kafka.Record) {
				if skip && r.Partition == 0 && r.Offset >= 3 {
					if !paused {
						paused = true
						cons.Pause(topic, 0)
					}
					return // skipped: fetched again from offset 3
				}
				got[r.Partition] = append(got[r.Partition], string(r.Value))
			}); err != nil || ctx.Err() != nil {
				t.Fatalf("%s: %v %v (got %v)", what, err, ctx.Err(), got)
			}
		}
	}
	poll("partition 1 while 0 is paused", func() bool { return paused && len(got[1]) == 10 })
	send(0, 10, 15)
	send(1, 110, 111) // after partition 0's: fetched with them, were 0 not paused
	poll("partition 1's last record", func() bool { return len(got[1]) == 11 })
	if fmt.Sprint(got[0]) != "[0 1 2]" {
		t.Fatalf("partition 0 handed over %v while paused, want [0 1 2] from before the pause", got[0])
	}

	skip = false
	cons.Resume(topic, map[int32]int64{0: 3})
	poll("partition 0 after Resume", func() bool { return len(got[0]) >= 15 })
	if want := "[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14]"; fmt.Sprint(got[0]) != want {
		t.Errorf("partition 0: %v, want %s", got[0], want)
	}
}
