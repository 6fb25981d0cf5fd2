package bus_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/bus"
	salxml "github.com/lsst-sal/salgo/xml"
)

// clearEnv unsets every LSST_* variable ConfigFromEnv reads, for this test.
func clearEnv(t *testing.T) {
	for _, k := range []string{bus.EnvBroker, bus.EnvRegistry, bus.EnvSubname, bus.EnvReplication,
		bus.EnvAcks, bus.EnvUser, bus.EnvPassword, bus.EnvProtocol, bus.EnvMechanism,
		bus.EnvMaxHistoryRead, bus.EnvTLSCA, bus.EnvTLSCert, bus.EnvTLSKey, bus.EnvIdempotent} {
		t.Setenv(k, "")
	}
}

func TestConfigFromEnv(t *testing.T) {
	clearEnv(t)
	c, err := bus.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Brokers) != 0 || c.Subname != "sal" || c.Replication != 1 || c.Acks != "1" || c.MaxHistoryRead != 500 || c.Protocol != "" {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv(bus.EnvBroker, " k1:9092, k2:9092 ,")
	t.Setenv(bus.EnvRegistry, "http://registry:8081")
	t.Setenv(bus.EnvSubname, "test_x")
	t.Setenv(bus.EnvReplication, "3")
	t.Setenv(bus.EnvAcks, "all")
	t.Setenv(bus.EnvMaxHistoryRead, "20")
	t.Setenv(bus.EnvUser, "u")
	t.Setenv(bus.EnvPassword, "p")
	if c, err = bus.ConfigFromEnv(); err != nil {
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
		{"replication not a number", map[string]string{bus.EnvReplication: "three"}, bus.EnvReplication},
		{"replication zero", map[string]string{bus.EnvReplication: "0"}, bus.EnvReplication},
		{"replication too large", map[string]string{bus.EnvReplication: "40000"}, bus.EnvReplication},
		{"acks", map[string]string{bus.EnvAcks: "2"}, "acks"},
		{"acks word", map[string]string{bus.EnvAcks: "leader"}, "acks"},
		{"history", map[string]string{bus.EnvMaxHistoryRead: "-1"}, bus.EnvMaxHistoryRead},
		{"idempotent not a boolean", map[string]string{bus.EnvIdempotent: "sometimes"}, bus.EnvIdempotent},
		{"idempotent without acks all", map[string]string{bus.EnvIdempotent: "true", bus.EnvAcks: "1"}, "acks=all"},
		{"security protocol", map[string]string{bus.EnvUser: "u", bus.EnvPassword: "p", bus.EnvProtocol: "SASL_TLS"}, "SASL_TLS"},
		{"SASL mechanism", map[string]string{bus.EnvUser: "u", bus.EnvPassword: "p", bus.EnvMechanism: "GSSAPI"}, "GSSAPI"},
		{"registry without scheme", map[string]string{bus.EnvRegistry: "schema-registry:8081"}, "schema registry URL"},
		{"registry scheme", map[string]string{bus.EnvRegistry: "ftp://registry:8081"}, "schema registry URL"},
		{"registry without host", map[string]string{bus.EnvRegistry: "http://"}, "schema registry URL"},
		{"registry not a URL", map[string]string{bus.EnvRegistry: "http://reg istry:80:81"}, "schema registry URL"},
		{"subname", map[string]string{bus.EnvSubname: "a.b"}, "subname"},
		{"TLS CA file", map[string]string{bus.EnvTLSCA: filepath.Join(t.TempDir(), "missing.pem")}, "CA file"},
		{"TLS CA file without PEM", map[string]string{bus.EnvTLSCA: writeFile(t, "ca.pem", "not a certificate")}, "no PEM"},
		{"TLS certificate without key", map[string]string{bus.EnvTLSCert: writeFile(t, "cert.pem", "x")}, "key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(bus.EnvBroker, "127.0.0.1:1") // never dialled: the configuration fails first
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg, err := bus.ConfigFromEnv()
			if err == nil {
				cfg.Definitions = salxml.Embedded()
				cfg.Logger = testLogger(t)
				var d *bus.Domain
				d, err = bus.NewDomain(context.Background(), cfg)
				if err == nil {
					d.Close()
					t.Fatalf("%v: accepted", c.env)
				}
			}
			if !errors.Is(err, bus.ErrConfig) {
				t.Errorf("%v: %v does not match ErrConfig", c.env, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: %q does not say %q", c.env, err, c.want)
			}
			if c.env[bus.EnvPassword] != "" && strings.Contains(err.Error(), c.env[bus.EnvPassword]+" ") {
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
	d, err := bus.NewDomain(ctx, bus.Config{
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
	if errors.Is(err, bus.ErrConfig) {
		t.Errorf("an unreachable broker is not a configuration error: %v", err)
	}
}
