package leaktest_test

import (
	"net"
	"testing"

	"go.uber.org/goleak"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// TestOptions_SeeSocketReads: a goroutine blocked reading a socket (as a
// leaked Kafka client's read loop is) is reported with the options every
// test package uses, and no longer once it has ended.
func TestOptions_SeeSocketReads(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	reading := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		close(reading)
		var b [1]byte
		conn.Read(b[:])
	}()
	<-reading
	if err := goleak.Find(leaktest.Options()...); err == nil {
		t.Fatal("a goroutine blocked on a socket read was not reported")
	}
	conn.Close()
	<-ended
	if err := goleak.Find(leaktest.Options()...); err != nil {
		t.Fatalf("reported after the reader ended: %v", err)
	}
}
