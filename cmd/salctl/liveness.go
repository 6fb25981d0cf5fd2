package main

// Liveness from the heartbeat: a CSC writes its heartbeat every second
// (controller.WithHeartbeatInterval), so one that wrote none within a few
// intervals is not running, whatever its last summaryState says (CSCs
// write that rarely, and a killed one leaves its last state on the bus).

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// heartbeatInterval is how often the component writes its heartbeat: a
// CSC every second (controller.WithHeartbeatInterval's default), a SAL script
// every 5 s (ts_salobj's BaseScript HEARTBEAT_INTERVAL), its first one
// interval after it starts.
func heartbeatInterval(c *salxml.Component) time.Duration {
	if c.Name == "Script" {
		return 5 * time.Second
	}
	return time.Second
}

// heartbeatBoundOf is how long state and command wait for a heartbeat of
// c written after they started before they call it not running: three
// heartbeat intervals, as ts_salobj allows (3 s for a CSC, 15 s for a
// script). A heartbeat read from history does not count: a CSC killed a
// moment ago left a recent one.
func heartbeatBoundOf(c *salxml.Component) time.Duration { return 3 * heartbeatInterval(c) }

// liveness is what the heartbeats of a component say about its
// instances, by SAL index (0 for a component that is not indexed).
type liveness struct {
	bound        time.Duration // heartbeatBoundOf the component
	hb           *sal.Reader
	hasHeartbeat bool              // the component has a heartbeat event
	live         map[int32]float64 // private_sndStamp of a heartbeat written after the Remote started
	newest       map[int32]float64 // private_sndStamp of the newest heartbeat seen, history included
}

func salIndexOf(rec map[string]any) int32 {
	i, _ := rec["salIndex"].(int32)
	return i
}

// awaitHeartbeats reads r's heartbeats, history first, then new ones until
// each SAL index of want has a new one (any index, when want is empty) or
// heartbeatBoundOf(c) has passed.
func awaitHeartbeats(ctx context.Context, r *sal.Remote, c *salxml.Component, want []int32) *liveness {
	lv := &liveness{bound: heartbeatBoundOf(c), live: map[int32]float64{}, newest: map[int32]float64{}}
	if c.Event("heartbeat") == nil {
		return lv
	}
	hb, err := r.Event("heartbeat")
	if err != nil {
		return lv
	}
	lv.hb, lv.hasHeartbeat = hb, true
	for range int(hb.Stats().Historical) {
		rec := hb.TryNext()
		if rec == nil {
			break
		}
		lv.add(rec, false)
	}
	done := func() bool {
		if len(want) == 0 {
			return len(lv.live) > 0
		}
		for _, i := range want {
			if _, ok := lv.live[i]; !ok {
				return false
			}
		}
		return true
	}
	wctx, cancel := context.WithTimeout(ctx, lv.bound)
	defer cancel()
	for !done() {
		rec, err := hb.Next(wctx)
		if err != nil {
			break
		}
		lv.add(rec, true)
	}
	return lv
}

// refresh takes the heartbeats that came since.
func (lv *liveness) refresh() {
	if lv.hb == nil {
		return
	}
	for rec := lv.hb.TryNext(); rec != nil; rec = lv.hb.TryNext() {
		lv.add(rec, true)
	}
}

func (lv *liveness) add(rec map[string]any, live bool) {
	snd, _ := rec["private_sndStamp"].(float64)
	i := salIndexOf(rec)
	if snd > lv.newest[i] {
		lv.newest[i] = snd
	}
	if live && snd > lv.live[i] {
		lv.live[i] = snd
	}
}

// alive says whether SAL index i wrote a heartbeat since the Remote
// started; a component without a heartbeat event counts as alive.
func (lv *liveness) alive(i int32) bool {
	if !lv.hasHeartbeat {
		return true
	}
	_, ok := lv.live[i]
	return ok
}

// age is how long ago the newest heartbeat of SAL index i was written;
// ok is false when none was seen.
func (lv *liveness) age(i int32) (secs float64, ok bool) {
	snd, ok := lv.newest[i]
	if !ok {
		return 0, false
	}
	return math.Max(0, sal.TAI()-snd), true
}

// describe is the liveness of SAL index i as state prints it: "alive
// (heartbeat 0.4 s ago)" or "NOT RUNNING (...)"; "" for a component
// without a heartbeat.
func (lv *liveness) describe(i int32) string {
	if !lv.hasHeartbeat {
		return ""
	}
	age, seen := lv.age(i)
	switch {
	case lv.alive(i):
		return fmt.Sprintf("alive (heartbeat %.1f s ago)", age)
	case seen:
		return fmt.Sprintf("NOT RUNNING (no heartbeat within %s; the newest was written %.1f s ago)", lv.bound, age)
	}
	return fmt.Sprintf("NOT RUNNING (no heartbeat within %s, none in history)", lv.bound)
}

// why is the reason a command is not sent to SAL index i, named who.
func (lv *liveness) why(who string, i int32) string {
	if age, seen := lv.age(i); seen {
		return fmt.Sprintf("%s is not running: no heartbeat within %s (the newest was written %.1f s ago)", who, lv.bound, age)
	}
	return fmt.Sprintf("%s is not running: no heartbeat within %s, none in history", who, lv.bound)
}

// jsonFields are the liveness fields of state -json: "alive" and
// "heartbeat_age_s" (null when no heartbeat was seen, or the component has
// none).
func (lv *liveness) jsonFields(i int32) string {
	age, seen := lv.age(i)
	a := "null"
	if seen {
		a = fmt.Sprintf("%.3f", age)
	}
	return fmt.Sprintf(`"alive":%t,"heartbeat_age_s":%s`, lv.alive(i), a)
}
