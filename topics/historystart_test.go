package topics

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/kafka"
)

// TestHistoryStart: where a reader starts on a partition, and the last
// historical offset it waits for. Every start is an exact offset: one the
// client had to resolve (the beginning) would miss the long-poll already
// in flight for the other partitions and wait for it to end.
func TestHistoryStart(t *testing.T) {
	for _, c := range []struct {
		low, high   int64
		depth       int
		start, last int64
	}{
		{0, 0, 1, 0, -1},   // empty
		{7, 7, 1, 7, -1},   // every record deleted
		{0, 10, 0, 10, -1}, // no history wanted
		{0, 10, 1, 9, 9},   // the newest
		{0, 10, 3, 7, 9},   // the newest 3
		{0, 10, 10, 0, 9},  // exactly all
		{0, 10, 500, 0, 9}, // more than there is
		{4, 10, 500, 4, 9}, // more than is left after deletion
		{4, 10, 6, 4, 9},   // exactly what is left
		{100, 101, 500, 100, 100},
	} {
		start, last := historyStart(kafka.Watermarks{Low: c.low, High: c.high}, c.depth)
		if start.Offset != c.start || last != c.last {
			t.Errorf("watermarks [%d, %d), depth %d: start %d, last %d; want %d, %d", c.low, c.high, c.depth, start.Offset, last, c.start, c.last)
		}
	}
}
