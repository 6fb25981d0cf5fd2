package embedded

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3 is a running in-process S3 store (gofakes3 with its in-memory
// backend) on a loopback listener: the Large File Annex's embedded
// default. It checks no signature: any credentials are accepted.
type S3 struct {
	srv     *http.Server
	url     string
	done    chan struct{}
	closeMu sync.Once
}

// StartS3 starts an empty in-memory S3 store on 127.0.0.1 and a free port.
func StartS3() (*S3, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded: start s3: %w", err)
	}
	fake := gofakes3.New(s3mem.New())
	s := &S3{
		srv:  &http.Server{Handler: fake.Server(), ReadHeaderTimeout: 10 * time.Second},
		url:  "http://" + ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener was closed under us; Close reports nothing more useful
		}
	}()
	return s, nil
}

// URL returns the store's endpoint URL (http://127.0.0.1:port), for
// path-style addressing.
func (s *S3) URL() string { return s.url }

// Close stops the store and drops its objects. It is safe to call twice.
func (s *S3) Close() {
	s.closeMu.Do(func() {
		_ = s.srv.Close()
		<-s.done
	})
}
