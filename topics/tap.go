package topics

import (
	"context"
	"errors"
	"fmt"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/kafka"
)

// TapRecord is one record seen by Tap, decoded with its writer's schema.
type TapRecord struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte
	// Size is the length of the Kafka value in bytes.
	Size int
	// SchemaID is the registry id in the value's header, Schema its text.
	SchemaID int32
	Schema   string
	// Value holds the decoded fields (hamba/avro's generic types: int for
	// Avro int, int64 for long, []any for arrays), or nil when Err is set.
	Value map[string]any
	// Err says why the record could not be decoded.
	Err error
}

// Tap reads Kafka topics by name with no definitions at all — the
// schema-unaware consumer: each value is decoded with the writer schema
// fetched from the registry by the id in its header. It starts back
// records before the end of each partition (0: only new records) and
// calls fn for each record, in order per partition, until ctx is done. A
// topic that does not exist is an error at once, unless this Domain made
// it (its Instances write or read it): then the broker's metadata is
// waited for, as Instance.Start does.
func (d *Domain) Tap(ctx context.Context, kafkaTopics []string, back int, fn func(TapRecord)) error {
	if len(kafkaTopics) == 0 {
		return errors.New("topics: Tap needs at least one topic")
	}
	var marks map[string]map[int32]kafka.Watermarks
	var err error
	if d.ensuredAll(kafkaTopics) {
		// Topics this Domain created a moment ago: a real broker's
		// metadata may not have them yet, so wait for it as Start does.
		marks, err = d.watermarksOf(ctx, kafkaTopics)
	} else {
		marks, err = d.prod.Watermarks(ctx, kafkaTopics...)
	}
	if err != nil {
		return fmt.Errorf("topics: %w", err)
	}
	return d.tap(ctx, marks, back, fn)
}

// tap is Tap from the partitions' watermarks marks, already read.
func (d *Domain) tap(ctx context.Context, marks map[string]map[int32]kafka.Watermarks, back int, fn func(TapRecord)) error {
	assign := map[string]map[int32]kafka.Start{}
	for t, parts := range marks {
		m := map[int32]kafka.Start{}
		for p, wm := range parts {
			m[p], _ = historyStart(wm, back)
		}
		assign[t] = m
	}
	cons, err := kafka.NewConsumer(d.cfg.kafka(), assign)
	if err != nil {
		return err
	}
	defer cons.Close()
	// decode runs on this goroutine only (in cons.Poll).
	type schema struct {
		g    *codec.Generic
		text string
	}
	schemas := map[int32]schema{}
	decode := func(r *kafka.Record) TapRecord {
		tr := TapRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Key: append([]byte(nil), r.Key...), Size: len(r.Value)}
		id, body, err := codec.SplitHeader(r.Value)
		if err != nil {
			tr.Err = err
			return tr
		}
		tr.SchemaID = id
		sc, ok := schemas[id]
		if !ok {
			text, err := d.reg.Schema(ctx, int(id))
			if err != nil {
				tr.Err = err
				return tr
			}
			g, err := codec.NewGeneric(text)
			if err != nil {
				tr.Err = fmt.Errorf("schema id %d: %w", id, err)
				return tr
			}
			sc = schema{g: g, text: text}
			schemas[id] = sc
		}
		tr.Schema = sc.text
		if tr.Value, err = sc.g.Unmarshal(body); err != nil {
			tr.Err = fmt.Errorf("schema id %d: %w", id, err)
		}
		return tr
	}
	for ctx.Err() == nil {
		err := cons.Poll(ctx, func(r *kafka.Record) { fn(decode(r)) })
		if errors.Is(err, kafka.ErrClosed) {
			break
		}
	}
	return ctx.Err()
}

// ExistingTopics lists, sorted, the Kafka topics whose names start with
// prefix (e.g. "lsst.sal.MTM1M3."), asking a broker with no client cache:
// the topics Tap can read now.
func (d *Domain) ExistingTopics(ctx context.Context, prefix string) ([]string, error) {
	names, err := d.prod.ListTopics(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	return names, nil
}
