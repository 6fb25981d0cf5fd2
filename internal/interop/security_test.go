package interop

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// The listeners and credentials of scripts/kafka/kafka.sh (its kafka.env).
type secureEnv struct {
	saslAddr, user, password string
	sslAddr, tlsDir          string
	mtlsAddr, mtlsDir        string
}

func needSecure(t *testing.T) *secureEnv {
	t.Helper()
	if os.Getenv("LSST_KAFKA_BROKER_ADDR") == "" || os.Getenv("LSST_SCHEMA_REGISTRY_URL") == "" {
		t.Skip("LSST_KAFKA_BROKER_ADDR or LSST_SCHEMA_REGISTRY_URL is unset: the security tests need the real broker of scripts/kafka/kafka.sh")
	}
	e := &secureEnv{
		saslAddr: os.Getenv("KAFKA_SASL_ADDR"), user: os.Getenv("KAFKA_SASL_USER"), password: os.Getenv("KAFKA_SASL_PASSWORD"),
		sslAddr: os.Getenv("KAFKA_SSL_ADDR"), tlsDir: os.Getenv("KAFKA_TLS_DIR"),
		mtlsAddr: os.Getenv(envMTLS), mtlsDir: os.Getenv(envMTLSDir),
	}
	return e
}

func (e *secureEnv) needSASL(t *testing.T) {
	t.Helper()
	if e.saslAddr == "" || e.user == "" || e.password == "" {
		t.Skip("KAFKA_SASL_ADDR, KAFKA_SASL_USER or KAFKA_SASL_PASSWORD is unset (source the kafka.env of scripts/kafka/kafka.sh start)")
	}
}

func (e *secureEnv) needTLS(t *testing.T) {
	t.Helper()
	if e.sslAddr == "" || e.tlsDir == "" {
		t.Skip("KAFKA_SSL_ADDR or KAFKA_TLS_DIR is unset (source the kafka.env of scripts/kafka/kafka.sh start)")
	}
}

func (e *secureEnv) needMTLS(t *testing.T) {
	t.Helper()
	if e.mtlsAddr == "" || e.mtlsDir == "" {
		t.Skip(envMTLS + " or " + envMTLSDir + " is unset: no broker with KAFKA_MTLS=1 (scripts/ci-integration.sh starts one)")
	}
}

// secureConnect connects with opts (which name the listener) and returns
// the Bus (or the error), everything the SDK logged and how long it took.
func secureConnect(t *testing.T, d time.Duration, opts ...sal.Option) (*sal.Bus, string, time.Duration, error) {
	t.Helper()
	log, buf := testLogger()
	all := append([]sal.Option{sal.WithDefinitions(salxml.Embedded()), sal.WithSubname(subname(t)), sal.WithLogger(log)}, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	t0 := time.Now()
	bus, err := sal.Connect(ctx, all...)
	took := time.Since(t0)
	if bus != nil {
		t.Cleanup(func() { bus.Close() })
	}
	return bus, buf.String(), took, err
}

// roundTrip writes an event from a Controller and reads it back with a
// Remote on bus: topic creation, schema registration, produce and fetch
// all go over the secured listener.
func roundTrip(t *testing.T, bus *sal.Bus) {
	t.Helper()
	ctx := ctxFor(t, 2*time.Minute)
	r, err := bus.NewRemote(ctx, "Example", 1, remote.WithReadOnly(), remote.WithInclude("scalars"), remote.WithEventHistory(false))
	if err != nil {
		t.Fatalf("NewRemote: %v", err)
	}
	defer r.Close()
	c, err := bus.NewController("Example", 1, controller.WithWriteOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Controller.Start: %v", err)
	}
	want := mrand.Int32()
	if _, err := c.MustEvent("scalars").Write(ctx, map[string]any{"int0": want, "string0": "secured"}); err != nil {
		t.Fatalf("write: %v", err)
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	got, err := r.MustEvent("scalars").Next(rctx)
	if err != nil {
		t.Fatalf("read back: %v (stats %+v)", err, r.MustEvent("scalars").Stats())
	}
	if got["int0"] != want || got["string0"] != "secured" {
		t.Fatalf("read back int0=%v string0=%v, want %v %q", got["int0"], got["string0"], want, "secured")
	}
}

// noSecret fails if any secret appears in what the SDK said.
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s contains the password %q:\n%s", what, s, text)
		}
	}
}

// mentions fails unless text names at least one of words (case-insensitive).
func mentions(t *testing.T, what, text string, words ...string) {
	t.Helper()
	low := strings.ToLower(text)
	for _, w := range words {
		if strings.Contains(low, strings.ToLower(w)) {
			return
		}
	}
	t.Errorf("%s does not say what is wrong (none of %q): %s", what, words, text)
}

func TestSASLSCRAM(t *testing.T) {
	e := needSecure(t)
	e.needSASL(t)
	bus, logs, _, err := secureConnect(t, time.Minute, sal.WithBrokers(e.saslAddr),
		sal.WithSASL("SASL_PLAINTEXT", "SCRAM-SHA-512", e.user, e.password))
	if err != nil {
		t.Fatalf("sal.Connect over SASL_PLAINTEXT SCRAM-SHA-512: %v", err)
	}
	if c := bus.Config(); c.Protocol != "SASL_PLAINTEXT" || c.Mechanism != "SCRAM-SHA-512" {
		t.Errorf("Config protocol %q mechanism %q", c.Protocol, c.Mechanism)
	}
	noSecret(t, "Config.String()", bus.Config().String(), e.password)
	roundTrip(t, bus)
	noSecret(t, "the SDK's log", logs, e.password)
}

// TestSASLFromEnv connects with the LSST_KAFKA_SECURITY_* variables, as a
// ts_salobj deployment configures SASL.
func TestSASLFromEnv(t *testing.T) {
	e := needSecure(t)
	e.needSASL(t)
	t.Setenv("LSST_KAFKA_BROKER_ADDR", e.saslAddr)
	t.Setenv("LSST_KAFKA_SECURITY_USERNAME", e.user)
	t.Setenv("LSST_KAFKA_SECURITY_PASSWORD", e.password)
	t.Setenv("LSST_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
	t.Setenv("LSST_KAFKA_SECURITY_MECHANISM", "SCRAM-SHA-512")
	bus, _, _, err := secureConnect(t, time.Minute)
	if err != nil {
		t.Fatalf("sal.Connect with LSST_KAFKA_SECURITY_*: %v", err)
	}
	if c := bus.Config(); c.Protocol != "SASL_PLAINTEXT" || c.Mechanism != "SCRAM-SHA-512" || c.User != e.user {
		t.Errorf("Config protocol %q mechanism %q user %q", c.Protocol, c.Mechanism, c.User)
	}
	roundTrip(t, bus)
}

// TestSASLWrongPassword: a wrong password is a clear error from
// sal.Connect before its deadline, and no password is ever shown.
func TestSASLWrongPassword(t *testing.T) {
	e := needSecure(t)
	e.needSASL(t)
	wrong := "wrong-" + big.NewInt(mrand.Int64()).Text(36)
	for _, mech := range []string{"SCRAM-SHA-512", "SCRAM-SHA-256"} {
		t.Run(mech, func(t *testing.T) {
			bus, logs, took, err := secureConnect(t, 30*time.Second, sal.WithBrokers(e.saslAddr),
				sal.WithSASL("SASL_PLAINTEXT", mech, e.user, wrong))
			if err == nil {
				bus.Close()
				t.Fatal("sal.Connect with a wrong password succeeded")
			}
			t.Logf("error after %v: %v", took.Round(time.Millisecond), err)
			mentions(t, "the error", err.Error(), "SASL", "authenticat", "credential", "password")
			noSecret(t, "the error", err.Error(), wrong, e.password)
			noSecret(t, "the SDK's log", logs, wrong, e.password)
		})
	}
}

func (e *secureEnv) file(name string) string { return filepath.Join(e.tlsDir, name) }

func TestTLS(t *testing.T) {
	e := needSecure(t)
	e.needTLS(t)
	for _, tc := range []struct {
		name       string
		cert, key  string
		fromEnvVar bool
	}{
		{name: "CA"},
		{name: "CA+client-cert", cert: "client.pem", key: "client-key.pem"},
		{name: "env", fromEnvVar: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []sal.Option
			if tc.fromEnvVar {
				t.Setenv("LSST_KAFKA_BROKER_ADDR", e.sslAddr)
				t.Setenv("LSST_KAFKA_TLS_CA_FILE", e.file("ca.pem"))
				t.Setenv("LSST_KAFKA_SECURITY_PROTOCOL", "SSL")
			} else {
				cert, key := "", ""
				if tc.cert != "" {
					cert, key = e.file(tc.cert), e.file(tc.key)
				}
				cfg, err := topics.LoadTLS(e.file("ca.pem"), cert, key)
				if err != nil {
					t.Fatal(err)
				}
				opts = append(opts, sal.WithBrokers(e.sslAddr), sal.WithTLS(cfg))
			}
			bus, _, _, err := secureConnect(t, time.Minute, opts...)
			if err != nil {
				t.Fatalf("sal.Connect over SSL: %v", err)
			}
			if p := bus.Config().Protocol; p != "SSL" {
				t.Errorf("Config protocol %q, want SSL", p)
			}
			roundTrip(t, bus)
		})
	}
}

// untrustedCA writes a CA certificate the broker's certificate does not
// chain to.
func untrustedCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "salgo interop untrusted CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "untrusted-ca.pem")
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTLSUntrusted: a broker certificate that does not chain to the
// configured CA (or to the system roots) is a clear error from sal.Connect
// before its deadline.
func TestTLSUntrusted(t *testing.T) {
	e := needSecure(t)
	e.needTLS(t)
	for _, tc := range []struct{ name, ca string }{{"other-CA", untrustedCA(t)}, {"system-roots", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := topics.LoadTLS(tc.ca, "", "")
			if err != nil {
				t.Fatal(err)
			}
			bus, _, took, err := secureConnect(t, 30*time.Second, sal.WithBrokers(e.sslAddr), sal.WithTLS(cfg))
			if err == nil {
				bus.Close()
				t.Fatal("sal.Connect trusted a broker certificate signed by an unknown CA")
			}
			t.Logf("error after %v: %v", took.Round(time.Millisecond), err)
			mentions(t, "the error", err.Error(), "certificate", "x509", "tls")
		})
	}
}

// TestMutualTLS runs against a second broker started with KAFKA_MTLS=1:
// the client certificate is required.
func TestMutualTLS(t *testing.T) {
	e := needSecure(t)
	e.needMTLS(t)
	ca := filepath.Join(e.mtlsDir, "ca.pem")
	t.Run("client-cert", func(t *testing.T) {
		cfg, err := topics.LoadTLS(ca, filepath.Join(e.mtlsDir, "client.pem"), filepath.Join(e.mtlsDir, "client-key.pem"))
		if err != nil {
			t.Fatal(err)
		}
		bus, _, _, err := secureConnect(t, time.Minute, sal.WithBrokers(e.mtlsAddr), sal.WithTLS(cfg))
		if err != nil {
			t.Fatalf("sal.Connect with a client certificate: %v", err)
		}
		roundTrip(t, bus)
	})
	t.Run("no-client-cert", func(t *testing.T) {
		cfg, err := topics.LoadTLS(ca, "", "")
		if err != nil {
			t.Fatal(err)
		}
		bus, _, took, err := secureConnect(t, 30*time.Second, sal.WithBrokers(e.mtlsAddr), sal.WithTLS(cfg))
		if err == nil {
			bus.Close()
			t.Fatal("sal.Connect without a client certificate succeeded on a broker that requires one")
		}
		t.Logf("error after %v: %v", took.Round(time.Millisecond), err)
		mentions(t, "the error", err.Error(), "certificate", "tls")
	})
}
