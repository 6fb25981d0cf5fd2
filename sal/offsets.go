package sal

import "github.com/lsst-sal/salgo/topics"

// PartitionOffsets is the extent of one partition of a Kafka topic, as
// Bus.Offsets lists them: High-Low records are kept (Records).
// Documented in package topics: go doc github.com/lsst-sal/salgo/topics.PartitionOffsets
type PartitionOffsets = topics.PartitionOffsets
