package remote

import (
	"math/rand/v2"
	"sort"
)

// maxSeqNum is the largest command sequence number (2^31-1).
const maxSeqNum = 1<<31 - 1

// seqNums hands out command sequence numbers as the reference does: the
// sorted command names split 1..2^31-1 into equal slices; each command
// starts at a random point of its slice and wraps within it. Never 0 or
// negative. Not safe for concurrent use per command name; callers lock.
type seqNums struct {
	ranges map[string][3]int32 // min, max, next
}

// newSeqNums makes the generator for the given command names.
func newSeqNums(commands []string, rng *rand.Rand) *seqNums {
	names := append([]string(nil), commands...)
	sort.Strings(names)
	s := &seqNums{ranges: make(map[string][3]int32, len(names))}
	if len(names) == 0 {
		return s
	}
	inc := int32(maxSeqNum / len(names))
	for i, n := range names {
		lo := int32(i)*inc + 1
		hi := int32(i)*inc + inc
		next := lo + rng.Int32N(hi-lo+1)
		s.ranges[n] = [3]int32{lo, hi, next}
	}
	return s
}

// Range returns the slice [min, max] of a command, and whether it exists.
func (s *seqNums) Range(command string) (lo, hi int32, ok bool) {
	r, ok := s.ranges[command]
	return r[0], r[1], ok
}

// Next returns the next sequence number of a command.
func (s *seqNums) Next(command string) (int32, bool) {
	r, ok := s.ranges[command]
	if !ok {
		return 0, false
	}
	v := r[2]
	if r[2] >= r[1] {
		r[2] = r[0]
	} else {
		r[2]++
	}
	s.ranges[command] = r
	return v, true
}
