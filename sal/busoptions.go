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

// WithUnboundedStrings lets the bus's writers (commands of Remotes, events
// and telemetry of Controllers and CSCs) send strings longer than their
// IDL_Size, as ts_salobj does, overriding LSST_UNBOUNDED_STRINGS (default
// false: Write refuses them with validate.ErrStringLength). Use it for a
// Remote that talks to Python CSCs, which accept such strings.
func WithUnboundedStrings() Option {
	return optFunc(func(s *settings) { s.cfg.UnboundedStrings = true })
}
