// Package s3store runs an in-process S3 store (gofakes3 with its
// in-memory backend) on loopback: the Large File Annex's embedded default
// (package lfa), as package embedded runs the in-process broker and
// registry. A package of its own so that programs of the bus alone (sal)
// do not link gofakes3; package lfa, and so salctl, do.
//
// It is a leaf: it imports no other package of the module.
package s3store

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Store is a running in-process S3 store on a loopback listener. It
// checks no signature: any credentials are accepted.
type Store struct {
	srv     *http.Server
	url     string
	done    chan struct{}
	closeMu sync.Once
}

// Start starts an empty in-memory S3 store on 127.0.0.1 and a free port.
func Start() (*Store, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("s3store: start: %w", err)
	}
	fake := gofakes3.New(s3mem.New())
	s := &Store{
		srv:  &http.Server{Handler: fake.Server(), ReadHeaderTimeout: 10 * time.Second},
		url:  "http://" + ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // ErrServerClosed after Close; nothing more useful to report
	}()
	return s, nil
}

// URL returns the store's endpoint URL (http://127.0.0.1:port), for
// path-style addressing.
func (s *Store) URL() string { return s.url }

// Close stops the store and drops its objects. It is safe to call twice.
func (s *Store) Close() {
	s.closeMu.Do(func() {
		_ = s.srv.Close()
		<-s.done
	})
}
