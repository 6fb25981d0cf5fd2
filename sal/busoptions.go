package sal

import "time"

// WithRegistryTimeout bounds each schema registry request (default
// topics.DefaultRegistryTimeout, 10 s; the caller's ctx bounds it too): a
// registry that accepts connections but never answers fails the start of
// a Remote, Controller or CSC within it, with an error naming the
// registry's URL.
func WithRegistryTimeout(d time.Duration) Option {
	return optFunc(func(s *settings) { s.cfg.RegistryTimeout = d })
}
