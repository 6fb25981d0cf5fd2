package topics_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// clearEnv unsets every LSST_* variable ConfigFromEnv reads, for this test.
func clearEnv(t *testing.T) {
	for _, k := range []string{topics.EnvBroker, topics.EnvRegistry, topics.EnvSubname, topics.EnvReplication,
		topics.EnvAcks, topics.EnvUser, topics.EnvPassword, topics.EnvProtocol, topics.EnvMechanism,
		topics.EnvMaxHistoryRead, topics.EnvTLSCA, topics.EnvTLSCert, topics.EnvTLSKey, topics.EnvIdempotent} {
		t.Setenv(k, "")
	}
}

func TestConfigFromEnv(t *testing.T) {
	clearEnv(t)
	c, err := topics.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Brokers) != 0 || c.Subname != "sal" || c.Replication != 1 || c.Acks != "1" || c.MaxHistoryRead != 500 || c.Protocol != "" {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv(topics.EnvBroker, " k1:9092, k2:9092 ,")
	t.Setenv(topics.EnvRegistry, "http://registry:8081")
	t.Setenv(topics.EnvSubname, "test_x")
	t.Setenv(topics.EnvReplication, "3")
	t.Setenv(topics.EnvAcks, "all")
	t.Setenv(topics.EnvMaxHistoryRead, "20")
	t.Setenv(topics.EnvUser, "u")
	t.Setenv(topics.EnvPassword, "p")
	if c, err = topics.ConfigFromEnv(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Brokers, ";") != "k1:9092;k2:9092" || c.RegistryURL != "http://registry:8081" || c.Subname != "test_x" ||
		c.Replication != 3 || c.Acks != "all" || c.MaxHistoryRead != 20 ||
		c.User != "u" || c.Password != "p" || c.Protocol != "SASL_PLAINTEXT" || c.Mechanism != "SCRAM-SHA-512" {
		t.Errorf("from the environment: %+v", c)
	}
	if strings.Contains(c.String(), "p\"") || strings.Contains(c.String(), "=p ") {
		t.Errorf("String shows the password: %s", c)
	}
}

// TestConfigErrors: each misconfiguration is an error matching ErrConfig
// that names what is wrong, from ConfigFromEnv or at the latest from
// NewDomain, before any connection is tried.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string // in the message
	}{
		{"replication not a number", map[string]string{topics.EnvReplication: "three"}, topics.EnvReplication},
		{"replication zero", map[string]string{topics.EnvReplication: "0"}, topics.EnvReplication},
		{"replication too large", map[string]string{topics.EnvReplication: "40000"}, topics.EnvReplication},
		{"acks", map[string]string{topics.EnvAcks: "2"}, "acks"},
		{"acks word", map[string]string{topics.EnvAcks: "leader"}, "acks"},
		{"history", map[string]string{topics.EnvMaxHistoryRead: "-1"}, topics.EnvMaxHistoryRead},
		{"idempotent not a boolean", map[string]string{topics.EnvIdempotent: "sometimes"}, topics.EnvIdempotent},
		{"idempotent without acks all", map[string]string{topics.EnvIdempotent: "true", topics.EnvAcks: "1"}, "acks=all"},
		{"security protocol", map[string]string{topics.EnvUser: "u", topics.EnvPassword: "p", topics.EnvProtocol: "SASL_TLS"}, "SASL_TLS"},
		{"SASL mechanism", map[string]string{topics.EnvUser: "u", topics.EnvPassword: "p", topics.EnvMechanism: "GSSAPI"}, "GSSAPI"},
		{"registry without scheme", map[string]string{topics.EnvRegistry: "schema-registry:8081"}, "schema registry URL"},
		{"registry scheme", map[string]string{topics.EnvRegistry: "ftp://registry:8081"}, "schema registry URL"},
		{"registry without host", map[string]string{topics.EnvRegistry: "http://"}, "schema registry URL"},
		{"registry not a URL", map[string]string{topics.EnvRegistry: "http://reg istry:80:81"}, "schema registry URL"},
		{"subname", map[string]string{topics.EnvSubname: "a.b"}, "subname"},
		{"TLS CA file", map[string]string{topics.EnvTLSCA: filepath.Join(t.TempDir(), "missing.pem")}, "CA file"},
		{"TLS CA file without PEM", map[string]string{topics.EnvTLSCA: writeFile(t, "ca.pem", "not a certificate")}, "no PEM"},
		{"TLS certificate without key", map[string]string{topics.EnvTLSCert: writeFile(t, "cert.pem", "x")}, "key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(topics.EnvBroker, "127.0.0.1:1") // never dialled: the configuration fails first
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg, err := topics.ConfigFromEnv()
			if err == nil {
				cfg.Definitions = salxml.Embedded()
				cfg.Logger = testLogger(t)
				var d *topics.Domain
				d, err = topics.NewDomain(context.Background(), cfg)
				if err == nil {
					d.Close()
					t.Fatalf("%v: accepted", c.env)
				}
			}
			if !errors.Is(err, topics.ErrConfig) {
				t.Errorf("%v: %v does not match ErrConfig", c.env, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %q does not say %q", c.env, err, c.want)
			}
			if c.env[topics.EnvPassword] != "" && strings.Contains(err.Error(), c.env[topics.EnvPassword]+" ") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

func writeFile(t *testing.T, name, text string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNewDomain_Unreachable: with no broker listening, NewDomain fails
// once ctx is done, with an error that names the broker, instead of hanging.
func TestNewDomain_Unreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	d, err := topics.NewDomain(ctx, topics.Config{
		Brokers:     []string{"127.0.0.1:1"},
		RegistryURL: "http://127.0.0.1:1",
		Definitions: salxml.Embedded(),
		Logger:      testLogger(t),
	})
	if err == nil {
		d.Close()
		t.Fatal("NewDomain succeeded with no broker")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("the error does not name the broker: %v", err)
	}
	if errors.Is(err, topics.ErrConfig) {
		t.Errorf("an unreachable broker is not a configuration error: %v", err)
	}
}
