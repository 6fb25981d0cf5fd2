package topics

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// PartitionOffsets is the extent of one partition of a Kafka topic: Low is
// the offset of the oldest record the broker still keeps, High the offset
// the next record will get, so High-Low records are kept.
type PartitionOffsets struct {
	Topic     string
	Partition int32
	Low, High int64
}

// Records is the number of records the partition keeps.
func (p PartitionOffsets) Records() int64 { return p.High - p.Low }

// Offsets lists the offsets of every partition of the Kafka topics, sorted
// by topic and partition, as `kafka-get-offsets` or `kcat -L -Q` show
// them. A topic that does not exist is an error naming it.
func (d *Domain) Offsets(ctx context.Context, kafkaTopics ...string) ([]PartitionOffsets, error) {
	if len(kafkaTopics) == 0 {
		return nil, nil
	}
	marks, err := d.prod.Watermarks(ctx, kafkaTopics...)
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	var out []PartitionOffsets
	for t, parts := range marks {
		for p, wm := range parts {
			out = append(out, PartitionOffsets{Topic: t, Partition: p, Low: wm.Low, High: wm.High})
		}
	}
	slices.SortFunc(out, func(a, b PartitionOffsets) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	return out, nil
}
