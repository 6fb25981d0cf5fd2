package kafka_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

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
