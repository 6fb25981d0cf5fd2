package topics

import "time"

// SetLogClock makes in's rate-limited log use interval and clock, so that
// tests decide when an interval has passed.
func SetLogClock(in *Instance, interval time.Duration, clock func() time.Time) {
	in.rl.mu.Lock()
	defer in.rl.mu.Unlock()
	in.rl.interval, in.rl.clock = interval, clock
}
