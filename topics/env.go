package topics

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// ConfigFromEnv reads the LSST_* environment variables. An unset variable
// keeps its default; a variable that is set is checked, and a value that
// is empty (or blank) or cannot be used is an error matching ErrConfig
// that names the variable and says what it accepts. An unset
// LSST_KAFKA_BROKER_ADDR leaves Brokers empty (the sal package then starts
// the in-process broker); set, it must name at least one host[:port].
func ConfigFromEnv() (Config, error) {
	return configFrom(os.LookupEnv)
}

// env reads variables for configFrom.
type env struct{ lookup func(string) (string, bool) }

// get returns a variable's value and whether it is set; a set variable
// that is empty or blank is an error.
func (e env) get(k string) (string, bool, error) {
	v, ok := e.lookup(k)
	if !ok {
		return "", false, nil
	}
	if strings.TrimSpace(v) == "" {
		return "", false, fmt.Errorf("topics: %w: %s is set but empty (unset it for the default)", ErrConfig, k)
	}
	return v, true, nil
}

func configFrom(lookup func(string) (string, bool)) (Config, error) {
	e := env{lookup}
	c := Config{Replication: 1, Acks: "1", MaxHistoryRead: DefaultMaxHistory}
	if v, ok := lookup(EnvBroker); ok {
		bs, err := parseBrokers(EnvBroker, v)
		if err != nil {
			return c, err
		}
		c.Brokers = bs
	}
	v, ok, err := e.get(EnvRegistry)
	if err != nil {
		return c, err
	}
	if ok {
		if u, perr := url.Parse(v); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("topics: %w: %s=%q is not a schema registry URL (want http(s)://host[:port][/path])", ErrConfig, EnvRegistry, redactURL(v))
		}
		c.RegistryURL = v
	}
	if v, ok := lookup(EnvSubname); ok && v != "" {
		// ts_salobj treats an empty subname as unset. Unset, it stays
		// empty: NewDomain refuses that on a broker, as ts_salobj does.
		if !validSubname(v) {
			return c, fmt.Errorf("topics: %w: %s=%q may hold only letters, digits, '_' and '-'", ErrConfig, EnvSubname, v)
		}
		c.Subname = v
	}
	if v, ok, err = e.get(EnvReplication); err != nil {
		return c, err
	} else if ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 32767 {
			return c, fmt.Errorf("topics: %w: %s=%q is not a replication factor (want an integer from 1 to 32767)", ErrConfig, EnvReplication, v)
		}
		c.Replication = int16(n)
	}
	if v, ok, err = e.get(EnvAcks); err != nil {
		return c, err
	} else if ok {
		acks, ok := parseAcks(v)
		if !ok {
			return c, fmt.Errorf("topics: %w: %s=%q is not an acks setting (want 0, 1, all or -1)", ErrConfig, EnvAcks, v)
		}
		c.Acks = acks
	}
	if v, ok, err = e.get(EnvIdempotent); err != nil {
		return c, err
	} else if ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return c, fmt.Errorf("topics: %w: %s=%q is not a boolean (want true or false)", ErrConfig, EnvIdempotent, v)
		}
		c.Idempotent = b
	}
	if v, ok, err = e.get(EnvUnboundedStrings); err != nil {
		return c, err
	} else if ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return c, fmt.Errorf("topics: %w: %s=%q is not a boolean (want true or false)", ErrConfig, EnvUnboundedStrings, v)
		}
		c.UnboundedStrings = b
	}
	if v, ok, err = e.get(EnvMaxHistoryRead); err != nil {
		return c, err
	} else if ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return c, fmt.Errorf("topics: %w: %s=%q is not a history depth (want an integer of at least 1)", ErrConfig, EnvMaxHistoryRead, v)
		}
		c.MaxHistoryRead = n
	}
	if err := readSecurity(e, &c); err != nil {
		return c, err
	}
	acks, idem := c.Acks, c.Idempotent
	if err := readKafkaFiles(e, &c); err != nil {
		return c, err
	}
	if c.Idempotent && c.Acks != "all" {
		idemFrom, acksFrom := EnvIdempotent+"=true", EnvAcks+"=all"
		if c.Idempotent != idem {
			idemFrom = "enable.idempotence: true in " + fileOf(lookup, "enable.idempotence")
		}
		if c.Acks != acks {
			acksFrom = "acks: all in " + fileOf(lookup, "acks", "request.required.acks")
		}
		return c, fmt.Errorf("topics: %w: %s needs %s (it is %s)", ErrConfig, idemFrom, acksFrom, c.Acks)
	}
	if v, ok := lookup(EnvHistoryConfig); ok && v != "" {
		// As ts_salobj: an empty value is no file, and a file that does not
		// exist (yet) is no error; it is read again at each start.
		if _, _, err := readHistoryConfig(v); err != nil {
			return c, err
		}
		c.HistoryReadConfig = v
	}
	return c, nil
}

// fileOf names the last of the librdkafka files (in ts_salobj's merge
// order) that holds one of keys, for messages.
func fileOf(lookup func(string) (string, bool), keys ...string) string {
	found := ""
	for _, k := range []string{EnvProducerConfig, EnvClientConfig} {
		path, ok := lookup(k)
		if !ok {
			continue
		}
		if m, err := readYAMLMapping(k, path); err == nil {
			for _, key := range keys {
				if _, ok := m[key]; ok {
					found = k + "=" + path
				}
			}
		}
	}
	return found
}

// readSecurity reads the SASL and TLS variables. As ts_salobj, SASL is on
// when both the user name and the password are set; one without the other
// is an error here (ts_salobj would connect without SASL).
func readSecurity(e env, c *Config) error {
	user, hasUser, err := e.get(EnvUser)
	if err != nil {
		return err
	}
	pass, hasPass, err := e.get(EnvPassword)
	if err != nil {
		return err
	}
	proto, hasProto, err := e.get(EnvProtocol)
	if err != nil {
		return err
	}
	mech, hasMech, err := e.get(EnvMechanism)
	if err != nil {
		return err
	}
	switch {
	case hasUser && !hasPass:
		return fmt.Errorf("topics: %w: %s is set but %s is not: SASL needs both", ErrConfig, EnvUser, EnvPassword)
	case hasPass && !hasUser:
		return fmt.Errorf("topics: %w: %s is set but %s is not: SASL needs both", ErrConfig, EnvPassword, EnvUser)
	}
	sasl := hasUser && hasPass
	if hasProto {
		p := strings.ToUpper(strings.TrimSpace(proto))
		switch p {
		case "PLAINTEXT", "SSL":
			if sasl {
				return fmt.Errorf("topics: %w: %s=%s sends no credentials, but %s and %s are set (want SASL_PLAINTEXT or SASL_SSL, or unset them)", ErrConfig, EnvProtocol, p, EnvUser, EnvPassword)
			}
		case "SASL_PLAINTEXT", "SASL_SSL":
			if !sasl {
				return fmt.Errorf("topics: %w: %s=%s needs %s and %s", ErrConfig, EnvProtocol, p, EnvUser, EnvPassword)
			}
		default:
			return fmt.Errorf("topics: %w: %s=%q is not a security protocol (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", ErrConfig, EnvProtocol, proto)
		}
		c.Protocol = p
	}
	if hasMech {
		m := strings.ToUpper(strings.TrimSpace(mech))
		switch m {
		case "SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN":
		default:
			return fmt.Errorf("topics: %w: %s=%q is not a supported SASL mechanism (want SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN)", ErrConfig, EnvMechanism, mech)
		}
		if sasl {
			c.Mechanism = m
		}
	}
	if sasl {
		c.User, c.Password = user, pass
		if c.Protocol == "" {
			c.Protocol = "SASL_PLAINTEXT"
		}
		if c.Mechanism == "" {
			c.Mechanism = "SCRAM-SHA-512"
		}
	}
	var files [3]string
	var set bool
	for i, k := range []string{EnvTLSCA, EnvTLSCert, EnvTLSKey} {
		v, ok, err := e.get(k)
		if err != nil {
			return err
		}
		files[i], set = v, set || ok
	}
	if !set {
		return nil
	}
	t, err := loadTLS(files[0], files[1], files[2], [3]string{EnvTLSCA, EnvTLSCert, EnvTLSKey})
	if err != nil {
		return err
	}
	c.TLS, c.tlsFiles = t, files
	if c.Protocol == "" {
		c.Protocol = "SSL"
	}
	return nil
}

// parseBrokers reads a comma-separated list of host[:port] (a port
// defaults to 9092, as librdkafka's); what names no broker, or an entry
// that is not host[:port], is an error naming the variable (or setting)
// what.
func parseBrokers(what, v string) ([]string, error) {
	var out []string
	for _, b := range strings.Split(v, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		if !validBroker(b) {
			return nil, fmt.Errorf("topics: %w: %s=%q: %q is not host:port (want host:port[,host:port...])", ErrConfig, what, v, b)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("topics: %w: %s=%q names no broker (want host:port[,host:port...]; unset it for the in-process bus)", ErrConfig, what, v)
	}
	return out, nil
}

func validBroker(b string) bool {
	host, port := b, ""
	if strings.Contains(b, ":") {
		var err error
		if host, port, err = net.SplitHostPort(b); err != nil {
			return false
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	if host == "" || strings.ContainsAny(host, " \t/@") {
		return false
	}
	return true
}

// parseAcks reads an acks setting as librdkafka does: 0, 1, all or -1.
func parseAcks(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1":
		return "1", true
	case "0":
		return "0", true
	case "all", "-1":
		return "all", true
	}
	return "", false
}

func validSubname(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

// redactURL hides the user info of a URL for messages.
func redactURL(raw string) string {
	if i := strings.Index(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			return raw[:j+3] + "***" + raw[i:]
		}
		return "***" + raw[i:]
	}
	return raw
}

// LoadTLS builds a TLS configuration from PEM files: a CA bundle (may be
// empty: system roots) and an optional client certificate and key.
func LoadTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	return loadTLS(caFile, certFile, keyFile, [3]string{"TLS CA file", "TLS certificate file", "TLS key file"})
}

// loadTLS is LoadTLS naming the files by names (variables or settings) in
// errors.
func loadTLS(caFile, certFile, keyFile string, names [3]string) (*tls.Config, error) {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("topics: %w: %s: %v", ErrConfig, names[0], err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("topics: %w: %s=%s holds no PEM certificate", ErrConfig, names[0], caFile)
		}
		t.RootCAs = pool
	}
	switch {
	case certFile != "" && keyFile == "":
		return nil, fmt.Errorf("topics: %w: %s is set but %s is not: a client certificate needs both", ErrConfig, names[1], names[2])
	case keyFile != "" && certFile == "":
		return nil, fmt.Errorf("topics: %w: %s is set but %s is not: a client certificate needs both", ErrConfig, names[2], names[1])
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("topics: %w: %s, %s: %v", ErrConfig, names[1], names[2], err)
		}
		t.Certificates = []tls.Certificate{cert}
	}
	return t, nil
}
