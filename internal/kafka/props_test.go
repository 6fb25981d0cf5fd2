package kafka_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/kafka"
)

// TestProps_Applied: the librdkafka properties with a franz-go equivalent
// become that option of the client of their role, the broker client ones
// winning over the client's own (as ts_salobj merges them); values come
// as YAML gives them (integers) or as strings.
func TestProps_Applied(t *testing.T) {
	p, err := kafka.NewProducer(kafka.Config{
		Brokers: []string{"127.0.0.1:1"}, Acks: "1",
		ProducerProps: map[string]any{"linger.ms": int64(5), "batch.size": "65536", "retries": int64(7), "fetch.wait.max.ms": nil},
		ClientProps:   map[string]any{"linger.ms": int64(9), "client.id": "mine", "socket.connection.setup.timeout.ms": int64(2500), "fetch.min.bytes": int64(10)},
	})
	if err == nil {
		defer p.Close()
		t.Fatal("a producer property map with fetch.wait.max.ms (a consumer property) was accepted")
	}
	p, err = kafka.NewProducer(kafka.Config{
		Brokers: []string{"127.0.0.1:1"}, Acks: "1",
		ProducerProps: map[string]any{"linger.ms": int64(5), "batch.size": "65536", "retries": int64(7), "compression.type": "zstd"},
		ClientProps:   map[string]any{"linger.ms": int64(9), "client.id": "mine", "socket.connection.setup.timeout.ms": int64(2500), "fetch.min.bytes": int64(10)},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, c := range []struct {
		opt  any
		want any
	}{
		{kgo.ProducerLinger, 9 * time.Millisecond}, // the broker client file wins
		{kgo.ProducerBatchMaxBytes, int32(65536)},
		{kgo.RecordRetries, int64(7)},
		{kgo.ClientID, "mine"},
		{kgo.DialTimeout, 2500 * time.Millisecond},
	} {
		if got := kafka.OptValue(p, c.opt); got != c.want {
			t.Errorf("%T: %v (%T), want %v", c.opt, got, got, c.want)
		}
	}
	cons, err := kafka.NewConsumer(kafka.Config{
		Brokers:       []string{"127.0.0.1:1"},
		ConsumerProps: map[string]any{"fetch.wait.max.ms": int64(50), "fetch.max.bytes": int64(1 << 20), "linger.ms": nil},
	}, nil)
	if err == nil {
		cons.Close()
		t.Fatal("a consumer property map with linger.ms (a producer property) was accepted")
	}
	cons, err = kafka.NewConsumer(kafka.Config{
		Brokers:       []string{"127.0.0.1:1"},
		ConsumerProps: map[string]any{"fetch.wait.max.ms": int64(50), "fetch.max.bytes": int64(1 << 20), "isolation.level": "read_committed"},
		ClientProps:   map[string]any{"linger.ms": int64(9), "fetch.min.bytes": "10"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	for _, c := range []struct {
		opt  any
		want any
	}{
		{kgo.FetchMaxWait, 50 * time.Millisecond},
		{kgo.FetchMaxBytes, int32(1 << 20)},
		{kgo.FetchMinBytes, int32(10)},
	} {
		if got := kafka.ConsumerOptValue(cons, c.opt); got != c.want {
			t.Errorf("%T: %v (%T), want %v", c.opt, got, got, c.want)
		}
	}
}

// TestClientMetrics: KIP-714 client metrics stay franz-go's default
// (pushed to a broker that asks) unless enable.metrics.push is false or
// the Config turns them off, as the in-process bus does.
func TestClientMetrics(t *testing.T) {
	for _, c := range []struct {
		cfg  kafka.Config
		want bool // disabled
	}{
		{kafka.Config{}, false},
		{kafka.Config{ClientProps: map[string]any{"enable.metrics.push": true}}, false},
		{kafka.Config{ClientProps: map[string]any{"enable.metrics.push": "false"}}, true},
		{kafka.Config{ConsumerProps: map[string]any{"enable.metrics.push": false}}, true},
		{kafka.Config{NoClientMetrics: true}, true},
	} {
		c.cfg.Brokers = []string{"127.0.0.1:1"}
		cons, err := kafka.NewConsumer(c.cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := kafka.ConsumerOptValue(cons, kgo.DisableClientMetrics); got != c.want {
			t.Errorf("%+v: client metrics disabled %v, want %v", c.cfg, got, c.want)
		}
		cons.Close()
	}
}

// TestCheck: a property without a franz-go equivalent, one the SDK sets
// itself, one of the other role, or a bad value is an error naming it.
func TestCheck(t *testing.T) {
	cases := []struct {
		role kafka.Role
		m    map[string]any
		want string
	}{
		{kafka.RoleProducer, map[string]any{"compression.level": int64(3)},
			"kafka: bad Kafka configuration: property compression.level has no franz-go equivalent in the SDK (a producer configuration may hold batch.size, client.id, compression.codec, compression.type, delivery.timeout.ms, enable.metrics.push, linger.ms, max.in.flight, max.in.flight.requests.per.connection, message.send.max.retries, message.timeout.ms, metadata.max.age.ms, queue.buffering.max.messages, queue.buffering.max.ms, request.timeout.ms, retries, retry.backoff.ms, socket.connection.setup.timeout.ms, socket.timeout.ms, topic.metadata.refresh.interval.ms)"},
		{kafka.RoleConsumer, map[string]any{"group.id": "g"},
			"kafka: bad Kafka configuration: property group.id is not settable: the SDK reads assigned partitions without a consumer group"},
		{kafka.RoleProducer, map[string]any{"fetch.min.bytes": int64(1)},
			"kafka: bad Kafka configuration: property fetch.min.bytes is a consumer property, not a producer one"},
		{kafka.RoleProducer, map[string]any{"linger.ms": "soon"},
			`kafka: bad Kafka configuration: property linger.ms: "soon" is not an integer`},
		{kafka.RoleProducer, map[string]any{"linger.ms": int64(-1)},
			`kafka: bad Kafka configuration: property linger.ms: -1 is out of range (want 0 to 2147483647)`},
		{kafka.RoleProducer, map[string]any{"compression.type": "brotli"},
			`kafka: bad Kafka configuration: property compression.type: want none, gzip, snappy, lz4 or zstd`},
		{kafka.RoleConsumer, map[string]any{"isolation.level": "dirty"},
			`kafka: bad Kafka configuration: property isolation.level: want read_committed or read_uncommitted`},
		{kafka.RoleClient, map[string]any{"enable.metrics.push": "sometimes"},
			`kafka: bad Kafka configuration: property enable.metrics.push: want true or false`},
		{kafka.RoleClient, map[string]any{"linger.ms": 1.5},
			`kafka: bad Kafka configuration: property linger.ms: 1.5 (float64) is not an integer`},
	}
	for _, c := range cases {
		err := kafka.Check(c.role, c.m)
		if err == nil || err.Error() != c.want || !errors.Is(err, kafka.ErrBadConfig) {
			t.Errorf("%s %v:\n got %v\nwant %s", c.role, c.m, err, c.want)
		}
	}
	if err := kafka.Check(kafka.RoleClient, map[string]any{"linger.ms": int64(1), "fetch.min.bytes": int64(1)}); err != nil {
		t.Errorf("the broker client configuration holds properties of both roles: %v", err)
	}
}
