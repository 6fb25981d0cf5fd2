// Package wirefixture reads the salobj8-wire fixture for the oracle tests:
// what the real Python ts_salobj 8.2.12 wrote on Kafka in a full TestCsc
// session (records with their bytes and fastavro's decoding, the schemas
// the registry returned and the schema texts salobj posted). The fixture
// itself lives outside the repository, in ../shared/fixtures/salobj8-wire
// (its README.md describes every field); SALGO_FIXTURES_DIR overrides
// that location.
//
// It is a test helper: its functions take a testing.TB and skip the test,
// saying why, when the fixture or the ts_xml definitions are not there,
// and fail it when a fixture file is malformed. It imports nothing of the
// module, so every package can use it in its tests.
package wirefixture
