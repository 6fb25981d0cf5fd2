// Package archtest holds the test that keeps the import graph as
// docs/architecture.md describes it.
package archtest
