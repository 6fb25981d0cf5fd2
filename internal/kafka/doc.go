// Package kafka is the SDK's only user of franz-go's kgo and kadm: it
// produces records, consumes assigned partitions from exact offsets, lists
// watermarks and creates topics. It knows nothing of SAL.
package kafka
