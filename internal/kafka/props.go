package kafka

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Role says which clients a map of librdkafka properties configures, as
// ts_salobj's three files do: the broker client configuration
// (LSST_KAFKA_BROKER_CLIENT_CONFIGURATION) goes to every client, the
// producer and consumer ones to that client only.
type Role int

// The roles.
const (
	RoleClient Role = iota
	RoleProducer
	RoleConsumer
)

func (r Role) String() string {
	switch r {
	case RoleProducer:
		return "producer"
	case RoleConsumer:
		return "consumer"
	}
	return "client"
}

// prop is one librdkafka property with a franz-go equivalent.
type prop struct {
	role  Role // RoleClient: any client
	apply func(v any) (kgo.Opt, error)
}

func msProp(f func(time.Duration) kgo.Opt) func(any) (kgo.Opt, error) {
	return func(v any) (kgo.Opt, error) {
		n, err := propInt(v, 0, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		return f(time.Duration(n) * time.Millisecond), nil
	}
}

func intProp(lo, hi int64, f func(int64) kgo.Opt) func(any) (kgo.Opt, error) {
	return func(v any) (kgo.Opt, error) {
		n, err := propInt(v, lo, hi)
		if err != nil {
			return nil, err
		}
		return f(n), nil
	}
}

// props are the librdkafka properties that have a franz-go equivalent.
// (The ones that are settings of the SDK's own, such as bootstrap.servers,
// acks or the SASL and TLS ones, are read by the caller into its
// configuration and never reach this table.)
var props = map[string]prop{
	"client.id": {RoleClient, func(v any) (kgo.Opt, error) {
		s, err := propString(v)
		if err != nil || s == "" {
			return nil, fmt.Errorf("want a non-empty string")
		}
		return kgo.ClientID(s), nil
	}},
	"socket.connection.setup.timeout.ms": {RoleClient, msProp(kgo.DialTimeout)},
	"metadata.max.age.ms":                {RoleClient, msProp(kgo.MetadataMaxAge)},
	"topic.metadata.refresh.interval.ms": {RoleClient, msProp(kgo.MetadataMaxAge)},
	"socket.timeout.ms":                  {RoleClient, msProp(kgo.RequestTimeoutOverhead)},
	"retry.backoff.ms": {RoleClient, msProp(func(d time.Duration) kgo.Opt {
		return kgo.RetryBackoffFn(func(int) time.Duration { return d })
	})},

	"linger.ms":              {RoleProducer, msProp(func(d time.Duration) kgo.Opt { return kgo.ProducerLinger(d) })},
	"queue.buffering.max.ms": {RoleProducer, msProp(func(d time.Duration) kgo.Opt { return kgo.ProducerLinger(d) })},
	"compression.type":       {RoleProducer, compression},
	"compression.codec":      {RoleProducer, compression},
	"batch.size": {RoleProducer, intProp(1, math.MaxInt32, func(n int64) kgo.Opt {
		return kgo.ProducerBatchMaxBytes(int32(n))
	})},
	"message.timeout.ms":  {RoleProducer, msProp(func(d time.Duration) kgo.Opt { return kgo.RecordDeliveryTimeout(d) })},
	"delivery.timeout.ms": {RoleProducer, msProp(func(d time.Duration) kgo.Opt { return kgo.RecordDeliveryTimeout(d) })},
	"request.timeout.ms": {RoleProducer, msProp(func(d time.Duration) kgo.Opt {
		return kgo.ProduceRequestTimeout(d)
	})},
	"retries":                  {RoleProducer, intProp(0, math.MaxInt32, func(n int64) kgo.Opt { return kgo.RecordRetries(int(n)) })},
	"message.send.max.retries": {RoleProducer, intProp(0, math.MaxInt32, func(n int64) kgo.Opt { return kgo.RecordRetries(int(n)) })},
	"queue.buffering.max.messages": {RoleProducer, intProp(1, math.MaxInt32, func(n int64) kgo.Opt {
		return kgo.MaxBufferedRecords(int(n))
	})},
	"max.in.flight.requests.per.connection": {RoleProducer, intProp(1, 1_000_000, func(n int64) kgo.Opt {
		return kgo.MaxProduceRequestsInflightPerBroker(int(n))
	})},
	"max.in.flight": {RoleProducer, intProp(1, 1_000_000, func(n int64) kgo.Opt {
		return kgo.MaxProduceRequestsInflightPerBroker(int(n))
	})},

	"fetch.wait.max.ms": {RoleConsumer, msProp(func(d time.Duration) kgo.Opt { return kgo.FetchMaxWait(d) })},
	"fetch.min.bytes":   {RoleConsumer, intProp(1, math.MaxInt32, func(n int64) kgo.Opt { return kgo.FetchMinBytes(int32(n)) })},
	"fetch.max.bytes":   {RoleConsumer, intProp(1, math.MaxInt32, func(n int64) kgo.Opt { return kgo.FetchMaxBytes(int32(n)) })},
	"max.partition.fetch.bytes": {RoleConsumer, intProp(1, math.MaxInt32, func(n int64) kgo.Opt {
		return kgo.FetchMaxPartitionBytes(int32(n))
	})},
	"fetch.message.max.bytes": {RoleConsumer, intProp(1, math.MaxInt32, func(n int64) kgo.Opt {
		return kgo.FetchMaxPartitionBytes(int32(n))
	})},
	// KIP-714 client metrics, pushed to a broker that asks for them
	// (franz-go and librdkafka push by default).
	"enable.metrics.push": {RoleClient, func(v any) (kgo.Opt, error) {
		s, _ := propString(v)
		switch strings.ToLower(s) {
		case "true":
			return nil, nil
		case "false":
			return kgo.DisableClientMetrics(), nil
		}
		return nil, fmt.Errorf("want true or false")
	}},
	"isolation.level": {RoleConsumer, func(v any) (kgo.Opt, error) {
		s, _ := propString(v)
		switch s {
		case "read_committed":
			return kgo.FetchIsolationLevel(kgo.ReadCommitted()), nil
		case "read_uncommitted":
			return kgo.FetchIsolationLevel(kgo.ReadUncommitted()), nil
		}
		return nil, fmt.Errorf("want read_committed or read_uncommitted")
	}},
}

// refused are properties that librdkafka has but the SDK sets itself, with
// the reason.
var refused = map[string]string{
	"group.id":                 "the SDK reads assigned partitions without a consumer group",
	"auto.offset.reset":        "the SDK positions every reader itself (history, or the end), as ts_salobj's on_assign does",
	"enable.auto.commit":       "the SDK commits no offsets",
	"allow.auto.create.topics": "the SDK creates its topics itself, as ts_salobj does",
}

func compression(v any) (kgo.Opt, error) {
	s, _ := propString(v)
	var c kgo.CompressionCodec
	switch strings.ToLower(s) {
	case "none":
		c = kgo.NoCompression()
	case "gzip":
		c = kgo.GzipCompression()
	case "snappy":
		c = kgo.SnappyCompression()
	case "lz4":
		c = kgo.Lz4Compression()
	case "zstd":
		c = kgo.ZstdCompression()
	default:
		return nil, fmt.Errorf("want none, gzip, snappy, lz4 or zstd")
	}
	return kgo.ProducerBatchCompression(c), nil
}

// propString is a property value as librdkafka gets it from Python: a
// string as is, an integer in decimal, a boolean as true or false.
func propString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("%v (%T) is not a scalar", v, v)
}

// PropString is the text librdkafka gets for a property value: a string
// as is, a number in decimal, a boolean as true or false.
func PropString(v any) (string, error) { return propString(v) }

// propInt reads an integer property (a YAML integer, or a string of one)
// between lo and hi.
func propInt(v any, lo, hi int64) (int64, error) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case int32:
		n = int64(x)
	case string:
		var err error
		if n, err = strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
			return 0, fmt.Errorf("%q is not an integer", x)
		}
	default:
		return 0, fmt.Errorf("%v (%T) is not an integer", v, v)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is out of range (want %d to %d)", n, lo, hi)
	}
	return n, nil
}

// Supported lists, sorted, the properties a map of the role may hold.
func Supported(role Role) []string {
	var out []string
	for k, p := range props {
		if role == RoleClient || p.role == RoleClient || p.role == role {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Check checks a map of librdkafka properties for a role: every key must
// be one with a franz-go equivalent, meant for that role's clients, with
// a value it accepts. The error names the first bad key, in key order.
func Check(role Role, m map[string]any) error {
	_, err := propOpts(role, role, m)
	return err
}

// propOpts is the franz-go options of the properties of m (a map of role
// from) that apply to a client of role to; it checks m as Check does.
func propOpts(from, to Role, m map[string]any) ([]kgo.Opt, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var opts []kgo.Opt
	for _, k := range keys {
		p, ok := props[k]
		if !ok {
			if why, ok := refused[k]; ok {
				return nil, fmt.Errorf("kafka: %w: property %s is not settable: %s", ErrBadConfig, k, why)
			}
			return nil, fmt.Errorf("kafka: %w: property %s has no franz-go equivalent in the SDK (a %s configuration may hold %s)", ErrBadConfig, k, from, strings.Join(Supported(from), ", "))
		}
		if from != RoleClient && p.role != RoleClient && p.role != from {
			return nil, fmt.Errorf("kafka: %w: property %s is a %s property, not a %s one", ErrBadConfig, k, p.role, from)
		}
		opt, err := p.apply(m[k])
		if err != nil {
			return nil, fmt.Errorf("kafka: %w: property %s: %v", ErrBadConfig, k, err)
		}
		if opt != nil && (p.role == RoleClient || p.role == to) {
			opts = append(opts, opt)
		}
	}
	return opts, nil
}
