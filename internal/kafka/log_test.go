package kafka_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/internal/ratelog"
)

// countHandler counts the records whose message holds a text.
type countHandler struct {
	mu   sync.Mutex
	text string
	n    int
	all  []string
}

func (h *countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *countHandler) WithGroup(string) slog.Handler            { return h }
func (h *countHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = append(h.all, r.Level.String()+" "+r.Message)
	if strings.Contains(r.Message, h.text) {
		h.n++
	}
	return nil
}

func (h *countHandler) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// TestLog_RateLimited: the Kafka client's warnings of a broker it cannot
// reach (one per connection attempt) go through Config.Limit, so that a
// broker that stays away is logged once per interval, not once per retry.
func TestLog_RateLimited(t *testing.T) {
	h := &countHandler{text: "unable to open connection to broker"}
	log := slog.New(h)
	rl := ratelog.New(log, time.Hour) // one interval covers the whole test
	p, err := kafka.NewProducer(kafka.Config{Brokers: []string{"127.0.0.1:1"}, Acks: "1", Logger: log, Limit: rl.Log})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	attempts := 0
	for attempts < 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := p.Ping(ctx); err == nil {
			t.Fatal("a ping of 127.0.0.1:1 succeeded")
		}
		cancel()
		attempts++
	}
	// Every attempt dialled and failed; kgo warned each time, the limit let one through.
	if n := h.count(); n != 1 {
		t.Errorf("%d attempts logged %d warnings %q, want 1:\n%s", attempts, n, h.text, strings.Join(h.all, "\n"))
	}
}
