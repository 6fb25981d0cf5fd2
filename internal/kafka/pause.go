package kafka

import "github.com/twmb/franz-go/pkg/kgo"

// Pause stops fetching the given partitions of topic: later polls return
// none of their records, even ones fetched already (those are fetched
// again after Resume). Call it from the goroutine that polls.
func (c *Consumer) Pause(topic string, parts ...int32) {
	c.cl.PauseFetchPartitions(map[string][]int32{topic: parts})
}

// Resume fetches paused partitions of topic again, each from the given
// offset (the first record not yet handed to the poll callback, or any
// record to read again). It ends the fetches in flight, so that the
// partitions are fetched at once rather than after a long-poll of the
// others ends. Call it from the goroutine that polls.
func (c *Consumer) Resume(topic string, from map[int32]int64) {
	if len(from) == 0 {
		return
	}
	parts := make([]int32, 0, len(from))
	offs := make(map[int32]kgo.EpochOffset, len(from))
	for p, o := range from {
		parts = append(parts, p)
		offs[p] = kgo.EpochOffset{Epoch: -1, Offset: o}
	}
	c.cl.ResumeFetchPartitions(map[string][]int32{topic: parts})
	// Setting the offsets restarts the client's fetch session: what was
	// fetched of the partitions since they were resumed is dropped, and
	// the fetches in flight (without them) end.
	c.cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{topic: offs})
}
