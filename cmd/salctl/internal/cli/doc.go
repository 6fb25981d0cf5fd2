// Package cli holds salctl's command-line plumbing: Main, with the signals,
// exit statuses and --version; usage errors; flag parsing; finding
// components and topics by name; connecting to the bus; rendering records
// as JSON or text, with the names of enumerated values (Enums) and acks
// (FormatAck); parsing field values typed on a command line (ParseValue)
// or given as JSON (JSONFloats); latency statistics and progress lines.
package cli
