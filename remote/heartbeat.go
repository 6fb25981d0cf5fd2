package remote

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/lsst-sal/salgo/topics"
)

// A CSC writes its heartbeat every second. A Remote that commands an
// instance whose newest heartbeat is older than heartbeatStale (or that it
// never saw) says so, as a hint: the command is sent and waited for as
// usual.
const (
	heartbeatStale = 3 * time.Second
	// hintDelay is how long after such a command the Remote looks again
	// before it logs the hint: a CSC started with the Remote may not have
	// written its first heartbeat yet.
	hintDelay = 2 * time.Second
)

// HeartbeatAge returns how long ago the newest heartbeat of the
// component instance was sent (its private_sndStamp against this host's
// clock), including one read from history at Start; ok is false when none
// has been seen, or when the Remote reads no heartbeat (Include without
// "heartbeat", Exclude("heartbeat"), or a component without one). It costs
// one Reader.Get.
func (r *Remote) HeartbeatAge() (age time.Duration, ok bool) {
	hb := r.evts["heartbeat"]
	if hb == nil {
		return 0, false
	}
	rec := hb.Get()
	if rec == nil {
		return 0, false
	}
	snd, _ := rec["private_sndStamp"].(float64)
	secs := topics.TAI() - snd
	if secs < 0 || math.IsNaN(secs) {
		secs = 0 // a clock ahead of ours: as fresh as it gets
	}
	return time.Duration(secs * float64(time.Second)), true
}

// heartbeatHint says why a command may see no ack, or "" when the
// instance's heartbeat is fresh or the Remote reads none.
func (r *Remote) heartbeatHint() string {
	age, seen, doubtful := r.heartbeatCheck()
	switch {
	case !doubtful:
		return ""
	case !seen:
		return fmt.Sprintf("no heartbeat of %s has been seen: is its CSC running?", r.Name())
	}
	return fmt.Sprintf("the newest heartbeat of %s is %s old: is its CSC running?", r.Name(), age.Round(time.Second))
}

// heartbeatCheck looks at the newest heartbeat once: its age, whether one
// was seen, and whether heartbeatHint has something to say (the Remote
// reads heartbeats and has seen none, or none recent), which watchHeartbeat
// asks for every command without building the text.
func (r *Remote) heartbeatCheck() (age time.Duration, seen, doubtful bool) {
	if r.evts["heartbeat"] == nil {
		return 0, false, false
	}
	age, seen = r.HeartbeatAge()
	return age, seen, !seen || age > heartbeatStale
}

// watchHeartbeat runs as command f is sent: if the instance's heartbeat
// is not fresh, it looks again after hintDelay and, if there is still
// none and f is still waiting, logs the hint (rate-limited) and keeps it
// for f's timeout error. A live CSC costs one Reader.Get per command.
func (r *Remote) watchHeartbeat(f *Future) {
	if _, _, doubtful := r.heartbeatCheck(); !doubtful {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended() {
		return
	}
	f.hintTimer = time.AfterFunc(hintDelay, func() {
		hint := r.heartbeatHint()
		if hint == "" || f.ended() {
			return
		}
		r.rl.Log(slog.LevelWarn, "no-heartbeat", "remote: "+hint, "remote", r.Name(), "command", f.name, "seqNum", f.seq)
	})
}
