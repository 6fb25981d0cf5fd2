package kafka_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/internal/kafka"
)

// acks collects the outcomes of produced records.
type acks struct {
	mu   sync.Mutex
	errs []error
	all  chan struct{}
	want int
}

func (a *acks) Acked(_ int32, _ int64, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.errs = append(a.errs, err)
	if len(a.errs) == a.want {
		close(a.all)
	}
}

// TestProduce_FullBuffer: with no broker to take them, records fill the
// client's buffer (queue.buffering.max.messages); a Produce waiting for
// space then returns when its ctx ends, its record failing with the
// ctx's error, while the records buffered before it keep waiting, and
// every record's Acker hears of it once the producer closes.
func TestProduce_FullBuffer(t *testing.T) {
	const max = 100
	p, err := kafka.NewProducer(kafka.Config{Brokers: []string{"127.0.0.1:1"}, Acks: "1",
		ProducerProps: map[string]any{"queue.buffering.max.messages": int64(max)}})
	if err != nil {
		t.Fatal(err)
	}
	a := &acks{all: make(chan struct{}), want: max + 1}
	msgs := make([]kafka.Message, max+1)
	for i := range max {
		p.Produce(context.Background(), &msgs[i], "t", nil, []byte("v"), time.Now(), a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		p.Produce(ctx, &msgs[max], "t", nil, []byte("v"), time.Now(), a)
	}()
	cancel()
	<-returned // a Produce that still blocked would hang the test
	a.mu.Lock()
	got := append([]error(nil), a.errs...)
	a.mu.Unlock()
	for _, err := range got {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a record failed with %v before the producer closed; want only the cancelled one", err)
		}
	}
	p.Close()
	<-a.all
	if len(a.errs) != max+1 {
		t.Errorf("%d outcomes for %d records", len(a.errs), max+1)
	}
}

// TestProduce_EndedCtxFailsNoOther: a record handed over with a context
// that has already ended, while the buffer has room, cannot fail the
// records produced after it to the same partition: franz-go fails every
// buffered record of a partition whose first record's context is done,
// so Produce must not give franz-go a cancelable context when it cannot
// block. (A CSC's exitControl aborted by a signal wrote summaryState
// OFFLINE with its cancelled context, and took the OFFLINE of the
// shutdown that followed down with it.)
func TestProduce_EndedCtxFailsNoOther(t *testing.T) {
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := kafka.NewProducer(kafka.Config{Brokers: c.Brokers(), Acks: "1", NoClientMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.EnsureTopics(context.Background(), []kafka.TopicSpec{{Name: "lsst.t", Partitions: 1}}); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	const n = 20
	a := &acks{all: make(chan struct{}), want: n}
	msgs := make([]kafka.Message, n)
	for i := range n {
		ctx := context.Background()
		if i%5 == 0 {
			ctx = ended
		}
		p.Produce(ctx, &msgs[i], "lsst.t", nil, []byte("v"), time.Now(), a)
	}
	<-a.all
	for i, err := range a.errs {
		if err != nil {
			t.Errorf("record %d of %d failed: %v", i, n, err)
		}
	}
}
