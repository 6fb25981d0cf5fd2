package controller

import (
	"testing"
	"time"
)

// TestAckDeadlines: the contexts bounding final acks end between ackWait
// and ackWait plus a second after the ack that takes them, and acks
// within the same second share one.
func TestAckDeadlines(t *testing.T) {
	var a ackDeadlines
	before := time.Now()
	ctx := a.get()
	after := time.Now()
	dl, ok := ctx.Deadline()
	if !ok {
		t.Fatal("an ack's context has no deadline")
	}
	if dl.Before(after.Add(ackWait)) || dl.After(after.Add(ackWait+time.Second)) {
		t.Errorf("deadline %v after the ack, want between %v and %v", dl.Sub(before), ackWait, ackWait+time.Second)
	}
	if ctx.Err() != nil {
		t.Fatalf("a fresh ack context is done: %v", ctx.Err())
	}
	if again := a.get(); again != ctx && time.Since(a.made) < time.Second {
		t.Error("two acks within a second got contexts of their own")
	}
	a.made = a.made.Add(-time.Second) // as if a second had passed
	if next := a.get(); next == ctx {
		t.Error("an ack a second later shares the old context: its wait would be shorter than ackWait")
	}
}
