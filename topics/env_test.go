package topics_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/topics"
)

// envVars is every variable ConfigFromEnv reads.
var envVars = []string{topics.EnvBroker, topics.EnvRegistry, topics.EnvSubname, topics.EnvReplication,
	topics.EnvAcks, topics.EnvUser, topics.EnvPassword, topics.EnvProtocol, topics.EnvMechanism,
	topics.EnvMaxHistoryRead, topics.EnvTLSCA, topics.EnvTLSCert, topics.EnvTLSKey, topics.EnvIdempotent,
	topics.EnvHistoryConfig, topics.EnvClientConfig, topics.EnvProducerConfig, topics.EnvConsumerConfig, topics.EnvUnboundedStrings}

// unsetEnv unsets every variable ConfigFromEnv reads, for this test (an
// empty value is not the same as an unset variable).
func unsetEnv(t *testing.T) {
	t.Helper()
	for _, k := range envVars {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
}

// TestConfigFromEnv_Errors: every variable's bad values are errors that
// match ErrConfig, name the variable and say what is accepted, in these
// exact words; nothing is dialled.
func TestConfigFromEnv_Errors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	notPEM := writeFile(t, "ca.pem", "not a certificate")
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"broker empty", map[string]string{topics.EnvBroker: ""},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR="" names no broker (want host:port[,host:port...]; unset it for the in-process bus)`},
		{"broker blank", map[string]string{topics.EnvBroker: " "},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR=" " names no broker (want host:port[,host:port...]; unset it for the in-process bus)`},
		{"broker commas", map[string]string{topics.EnvBroker: ",,,"},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR=",,," names no broker (want host:port[,host:port...]; unset it for the in-process bus)`},
		{"broker port", map[string]string{topics.EnvBroker: "k1:x"},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR="k1:x": "k1:x" is not host:port (want host:port[,host:port...])`},
		{"broker port range", map[string]string{topics.EnvBroker: "k1:9092,k2:70000"},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR="k1:9092,k2:70000": "k2:70000" is not host:port (want host:port[,host:port...])`},
		{"broker no host", map[string]string{topics.EnvBroker: ":9092"},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR=":9092": ":9092" is not host:port (want host:port[,host:port...])`},
		{"broker spaces", map[string]string{topics.EnvBroker: "k1:9092 k2:9092"},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR="k1:9092 k2:9092": "k1:9092 k2:9092" is not host:port (want host:port[,host:port...])`},
		{"broker URL", map[string]string{topics.EnvBroker: "kafka://k1:9092"},
			`topics: bad configuration: LSST_KAFKA_BROKER_ADDR="kafka://k1:9092": "kafka://k1:9092" is not host:port (want host:port[,host:port...])`},
		{"registry empty", map[string]string{topics.EnvRegistry: ""},
			`topics: bad configuration: LSST_SCHEMA_REGISTRY_URL is set but empty (unset it for the default)`},
		{"registry without scheme", map[string]string{topics.EnvRegistry: "schema-registry:8081"},
			`topics: bad configuration: LSST_SCHEMA_REGISTRY_URL="schema-registry:8081" is not a schema registry URL (want http(s)://host[:port][/path])`},
		{"registry scheme", map[string]string{topics.EnvRegistry: "ftp://registry:8081"},
			`topics: bad configuration: LSST_SCHEMA_REGISTRY_URL="ftp://registry:8081" is not a schema registry URL (want http(s)://host[:port][/path])`},
		{"registry without host", map[string]string{topics.EnvRegistry: "http://"},
			`topics: bad configuration: LSST_SCHEMA_REGISTRY_URL="http://" is not a schema registry URL (want http(s)://host[:port][/path])`},
		{"registry password not shown", map[string]string{topics.EnvRegistry: "ftp://u:secret@registry:8081"},
			`topics: bad configuration: LSST_SCHEMA_REGISTRY_URL="ftp://***@registry:8081" is not a schema registry URL (want http(s)://host[:port][/path])`},
		{"subname", map[string]string{topics.EnvSubname: "a.b"},
			`topics: bad configuration: LSST_TOPIC_SUBNAME="a.b" may hold only letters, digits, '_' and '-'`},
		{"replication empty", map[string]string{topics.EnvReplication: ""},
			`topics: bad configuration: LSST_KAFKA_REPLICATION_FACTOR is set but empty (unset it for the default)`},
		{"replication not a number", map[string]string{topics.EnvReplication: "three"},
			`topics: bad configuration: LSST_KAFKA_REPLICATION_FACTOR="three" is not a replication factor (want an integer from 1 to 32767)`},
		{"replication zero", map[string]string{topics.EnvReplication: "0"},
			`topics: bad configuration: LSST_KAFKA_REPLICATION_FACTOR="0" is not a replication factor (want an integer from 1 to 32767)`},
		{"replication too large", map[string]string{topics.EnvReplication: "40000"},
			`topics: bad configuration: LSST_KAFKA_REPLICATION_FACTOR="40000" is not a replication factor (want an integer from 1 to 32767)`},
		{"acks empty", map[string]string{topics.EnvAcks: " "},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_WAIT_ACKS is set but empty (unset it for the default)`},
		{"acks number", map[string]string{topics.EnvAcks: "2"},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_WAIT_ACKS="2" is not an acks setting (want 0, 1, all or -1)`},
		{"acks word", map[string]string{topics.EnvAcks: "leader"},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_WAIT_ACKS="leader" is not an acks setting (want 0, 1, all or -1)`},
		{"idempotent not a boolean", map[string]string{topics.EnvIdempotent: "sometimes"},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_IDEMPOTENT="sometimes" is not a boolean (want true or false)`},
		{"idempotent empty", map[string]string{topics.EnvIdempotent: ""},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_IDEMPOTENT is set but empty (unset it for the default)`},
		{"idempotent with acks 1", map[string]string{topics.EnvIdempotent: "true", topics.EnvAcks: "1"},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_IDEMPOTENT=true needs LSST_KAFKA_PRODUCER_WAIT_ACKS=all (it is 1)`},
		{"idempotent with acks unset", map[string]string{topics.EnvIdempotent: "true"},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_IDEMPOTENT=true needs LSST_KAFKA_PRODUCER_WAIT_ACKS=all (it is 1)`},
		{"unbounded strings", map[string]string{topics.EnvUnboundedStrings: "maybe"},
			`topics: bad configuration: LSST_UNBOUNDED_STRINGS="maybe" is not a boolean (want true or false)`},
		{"history empty", map[string]string{topics.EnvMaxHistoryRead: ""},
			`topics: bad configuration: LSST_MAX_HISTORY_READ is set but empty (unset it for the default)`},
		{"history negative", map[string]string{topics.EnvMaxHistoryRead: "-1"},
			`topics: bad configuration: LSST_MAX_HISTORY_READ="-1" is not a history depth (want an integer of at least 1)`},
		{"history zero", map[string]string{topics.EnvMaxHistoryRead: "0"},
			`topics: bad configuration: LSST_MAX_HISTORY_READ="0" is not a history depth (want an integer of at least 1)`},
		{"history word", map[string]string{topics.EnvMaxHistoryRead: "all"},
			`topics: bad configuration: LSST_MAX_HISTORY_READ="all" is not a history depth (want an integer of at least 1)`},
		{"user without password", map[string]string{topics.EnvUser: "u"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_USERNAME is set but LSST_KAFKA_SECURITY_PASSWORD is not: SASL needs both`},
		{"password without user", map[string]string{topics.EnvPassword: "secret"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_PASSWORD is set but LSST_KAFKA_SECURITY_USERNAME is not: SASL needs both`},
		{"user empty", map[string]string{topics.EnvUser: "", topics.EnvPassword: "secret"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_USERNAME is set but empty (unset it for the default)`},
		{"password empty", map[string]string{topics.EnvUser: "u", topics.EnvPassword: ""},
			`topics: bad configuration: LSST_KAFKA_SECURITY_PASSWORD is set but empty (unset it for the default)`},
		{"security protocol", map[string]string{topics.EnvUser: "u", topics.EnvPassword: "secret", topics.EnvProtocol: "SASL_TLS"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_PROTOCOL="SASL_TLS" is not a security protocol (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)`},
		{"security protocol empty", map[string]string{topics.EnvProtocol: ""},
			`topics: bad configuration: LSST_KAFKA_SECURITY_PROTOCOL is set but empty (unset it for the default)`},
		{"SASL protocol without credentials", map[string]string{topics.EnvProtocol: "SASL_SSL"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_PROTOCOL=SASL_SSL needs LSST_KAFKA_SECURITY_USERNAME and LSST_KAFKA_SECURITY_PASSWORD`},
		{"plain protocol with credentials", map[string]string{topics.EnvUser: "u", topics.EnvPassword: "secret", topics.EnvProtocol: "PLAINTEXT"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_PROTOCOL=PLAINTEXT sends no credentials, but LSST_KAFKA_SECURITY_USERNAME and LSST_KAFKA_SECURITY_PASSWORD are set (want SASL_PLAINTEXT or SASL_SSL, or unset them)`},
		{"SASL mechanism", map[string]string{topics.EnvUser: "u", topics.EnvPassword: "secret", topics.EnvMechanism: "GSSAPI"},
			`topics: bad configuration: LSST_KAFKA_SECURITY_MECHANISM="GSSAPI" is not a supported SASL mechanism (want SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN)`},
		{"SASL mechanism empty", map[string]string{topics.EnvMechanism: ""},
			`topics: bad configuration: LSST_KAFKA_SECURITY_MECHANISM is set but empty (unset it for the default)`},
		{"TLS CA file", map[string]string{topics.EnvTLSCA: missing},
			`topics: bad configuration: LSST_KAFKA_TLS_CA_FILE: open ` + missing + `: no such file or directory`},
		{"TLS CA file empty", map[string]string{topics.EnvTLSCA: ""},
			`topics: bad configuration: LSST_KAFKA_TLS_CA_FILE is set but empty (unset it for the default)`},
		{"TLS CA file without PEM", map[string]string{topics.EnvTLSCA: notPEM},
			`topics: bad configuration: LSST_KAFKA_TLS_CA_FILE=` + notPEM + ` holds no PEM certificate`},
		{"TLS certificate without key", map[string]string{topics.EnvTLSCert: notPEM},
			`topics: bad configuration: LSST_KAFKA_TLS_CERT_FILE is set but LSST_KAFKA_TLS_KEY_FILE is not: a client certificate needs both`},
		{"TLS key without certificate", map[string]string{topics.EnvTLSKey: notPEM},
			`topics: bad configuration: LSST_KAFKA_TLS_KEY_FILE is set but LSST_KAFKA_TLS_CERT_FILE is not: a client certificate needs both`},
		{"TLS certificate not PEM", map[string]string{topics.EnvTLSCert: notPEM, topics.EnvTLSKey: notPEM},
			`topics: bad configuration: LSST_KAFKA_TLS_CERT_FILE, LSST_KAFKA_TLS_KEY_FILE: tls: failed to find any PEM data in certificate input`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unsetEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			_, err := topics.ConfigFromEnv()
			if err == nil {
				t.Fatalf("%q: accepted", c.env)
			}
			if !errors.Is(err, topics.ErrConfig) {
				t.Errorf("%v does not match ErrConfig", err)
			}
			if err.Error() != c.want {
				t.Errorf("%q:\n got %s\nwant %s", c.env, err, c.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestConfigFromEnv_Accepted: what ts_salobj (librdkafka) accepts is
// read, with only an unset variable meaning its default.
func TestConfigFromEnv_Accepted(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		check func(topics.Config) bool
	}{
		{"nothing set: the in-process bus", nil, func(c topics.Config) bool { return len(c.Brokers) == 0 }},
		{"a stray comma", map[string]string{topics.EnvBroker: " k1:9092, k2:9092 ,"}, func(c topics.Config) bool { return strings.Join(c.Brokers, ";") == "k1:9092;k2:9092" }},
		{"a host without a port", map[string]string{topics.EnvBroker: "kafka"}, func(c topics.Config) bool { return strings.Join(c.Brokers, ";") == "kafka" }},
		{"IPv6", map[string]string{topics.EnvBroker: "[::1]:9092"}, func(c topics.Config) bool { return strings.Join(c.Brokers, ";") == "[::1]:9092" }},
		{"acks -1", map[string]string{topics.EnvAcks: "-1"}, func(c topics.Config) bool { return c.Acks == "all" }},
		{"acks ALL", map[string]string{topics.EnvAcks: "ALL"}, func(c topics.Config) bool { return c.Acks == "all" }},
		{"acks 0", map[string]string{topics.EnvAcks: "0"}, func(c topics.Config) bool { return c.Acks == "0" }},
		{"unbounded strings", map[string]string{topics.EnvUnboundedStrings: "true"}, func(c topics.Config) bool { return c.UnboundedStrings }},
		{"idempotent", map[string]string{topics.EnvIdempotent: "true", topics.EnvAcks: "all"}, func(c topics.Config) bool { return c.Idempotent }},
		{"protocol in lower case", map[string]string{topics.EnvUser: "u", topics.EnvPassword: "p", topics.EnvProtocol: "sasl_ssl"}, func(c topics.Config) bool { return c.Protocol == "SASL_SSL" }},
		{"SSL without credentials", map[string]string{topics.EnvProtocol: "SSL"}, func(c topics.Config) bool { return c.Protocol == "SSL" }},
		{"PLAINTEXT", map[string]string{topics.EnvProtocol: "PLAINTEXT"}, func(c topics.Config) bool { return c.Protocol == "PLAINTEXT" }},
		{"mechanism without SASL is not used", map[string]string{topics.EnvMechanism: "PLAIN"}, func(c topics.Config) bool { return c.Mechanism == "" }},
		{"registry", map[string]string{topics.EnvRegistry: "https://u:p@registry.example:8081/sr"}, func(c topics.Config) bool { return c.RegistryURL == "https://u:p@registry.example:8081/sr" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unsetEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg, err := topics.ConfigFromEnv()
			if err != nil {
				t.Fatalf("%q: %v", c.env, err)
			}
			if !c.check(cfg) {
				t.Errorf("%q: read as %+v", c.env, cfg)
			}
		})
	}
}
