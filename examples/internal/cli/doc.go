// Package cli holds what the example programs (read, write and salctl)
// share: usage errors and the exit status they map to, flag parsing,
// finding components and topics by name, connecting to the bus, rendering
// records as JSON or text, latency statistics and progress lines.
package cli
