package lfa

import (
	"sync"

	"github.com/lsst-sal/salgo/internal/embedded/s3store"
)

// The process's in-process store: started by the first Open with no
// endpoint, shared by every Bucket of the process, stopped by Close.
var (
	storeMu sync.Mutex
	store   *s3store.Store
)

func embeddedStore() (string, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	if store == nil {
		s, err := s3store.Start()
		if err != nil {
			return "", err
		}
		store = s
	}
	return store.URL(), nil
}

// Close stops the process's in-process store, if one was started, and
// drops its objects; the Buckets on it fail after. The next Open with no
// endpoint starts a new, empty store. It is safe to call twice; it does
// not touch Buckets of a real store.
func Close() error {
	storeMu.Lock()
	s := store
	store = nil
	storeMu.Unlock()
	if s != nil {
		s.Close()
	}
	return nil
}
