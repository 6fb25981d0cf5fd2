package main

// A minimal, read-only Kafka client for the schema-unaware verbs (echo,
// hz, bw and the telemetry side of history). The SDK's public API reads
// topics only through their XML definitions, and the module's import rules
// (internal/archtest) keep franz-go inside internal/kafka, so this file
// speaks the Kafka protocol itself: ApiVersions, optional SASL (PLAIN,
// SCRAM-SHA-256/512), Metadata, ListOffsets and Fetch, at non-flexible
// versions that both Kafka 4.x and the SDK's embedded broker serve, and
// record batches v2 (magic 2) with no, gzip, snappy or lz4 compression.

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/topics"
)

// Kafka API keys and the version ranges this client implements.
const (
	apiFetch         = 1
	apiListOffsets   = 2
	apiMetadata      = 3
	apiSASLHandshake = 17
	apiVersions      = 18
	apiSASLAuth      = 36
)

var implemented = map[int16][2]int16{
	apiFetch:         {4, 11},
	apiListOffsets:   {1, 5},
	apiMetadata:      {4, 8},
	apiSASLHandshake: {1, 1},
	apiSASLAuth:      {0, 1},
}

// Kafka error codes this client acts on.
const (
	errOffsetOutOfRange  = 1
	errUnknownTopic      = 3
	errLeaderNotAvail    = 5
	errNotLeader         = 6
	errTopicAuthFailed   = 29
	errSASLAuthFailed    = 58
	errUnsupportedSASL   = 33
	errFencedLeaderEpoch = 74
	errUnknownLeaderEp   = 75
)

// kafkaError is a non-zero Kafka error code.
type kafkaError struct {
	code int16
	what string
}

func (e *kafkaError) Error() string {
	return fmt.Sprintf("kafka: %s: error code %d (%s)", e.what, e.code, errorName(e.code))
}

func errorName(c int16) string {
	switch c {
	case errOffsetOutOfRange:
		return "OFFSET_OUT_OF_RANGE"
	case errUnknownTopic:
		return "UNKNOWN_TOPIC_OR_PARTITION"
	case errLeaderNotAvail:
		return "LEADER_NOT_AVAILABLE"
	case errNotLeader:
		return "NOT_LEADER_OR_FOLLOWER"
	case errTopicAuthFailed:
		return "TOPIC_AUTHORIZATION_FAILED"
	case errUnsupportedSASL:
		return "UNSUPPORTED_SASL_MECHANISM"
	case errSASLAuthFailed:
		return "SASL_AUTHENTICATION_FAILED"
	}
	return "see the Kafka protocol's error codes"
}

// wireConfig is how to reach the brokers: the LSST_* settings of the SDK.
type wireConfig struct {
	Brokers   []string
	Protocol  string // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
	Mechanism string
	User      string
	Password  string
	TLS       *tls.Config
}

func wireFrom(c topics.Config) wireConfig {
	return wireConfig{Brokers: c.Brokers, Protocol: strings.ToUpper(c.Protocol), Mechanism: strings.ToUpper(c.Mechanism), User: c.User, Password: c.Password, TLS: c.TLS}
}

// ---------------------------------------------------------------------
// Encoding.

type enc struct{ b []byte }

func (e *enc) i8(v int8)   { e.b = append(e.b, byte(v)) }
func (e *enc) i16(v int16) { e.b = binary.BigEndian.AppendUint16(e.b, uint16(v)) }
func (e *enc) i32(v int32) { e.b = binary.BigEndian.AppendUint32(e.b, uint32(v)) }
func (e *enc) i64(v int64) { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)) }
func (e *enc) str(s string) {
	e.i16(int16(len(s)))
	e.b = append(e.b, s...)
}
func (e *enc) bytes(b []byte) {
	e.i32(int32(len(b)))
	e.b = append(e.b, b...)
}
func (e *enc) boolean(v bool) {
	if v {
		e.i8(1)
	} else {
		e.i8(0)
	}
}

// dec reads a response; the first error sticks and later reads return zeros.
type dec struct {
	b   []byte
	err error
}

func (d *dec) need(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b) < n {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *dec) i8() int8 {
	if b := d.need(1); b != nil {
		return int8(b[0])
	}
	return 0
}
func (d *dec) i16() int16 {
	if b := d.need(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}
func (d *dec) i32() int32 {
	if b := d.need(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}
func (d *dec) i64() int64 {
	if b := d.need(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}
func (d *dec) str() string {
	n := d.i16()
	if n < 0 {
		return ""
	}
	return string(d.need(int(n)))
}
func (d *dec) bytes() []byte {
	n := d.i32()
	if n < 0 {
		return nil
	}
	return d.need(int(n))
}

// arr reads an array length; null arrays (-1) read as empty.
func (d *dec) arr() int {
	n := d.i32()
	if n < 0 || d.err != nil {
		return 0
	}
	if int(n) > len(d.b) { // every element takes at least a byte
		d.err = io.ErrUnexpectedEOF
		return 0
	}
	return int(n)
}

func (d *dec) varint() int64 {
	if d.err != nil {
		return 0
	}
	u, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = io.ErrUnexpectedEOF
		return 0
	}
	d.b = d.b[n:]
	return int64(u>>1) ^ -int64(u&1)
}

// ---------------------------------------------------------------------
// One broker connection.

type brokerConn struct {
	addr     string
	mu       sync.Mutex
	conn     net.Conn
	rd       *bufio.Reader
	corr     int32
	versions map[int16][2]int16
}

func dialBroker(ctx context.Context, cfg wireConfig, addr string) (*brokerConn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if cfg.Protocol == "SSL" || cfg.Protocol == "SASL_SSL" {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if cfg.TLS != nil {
			tc = cfg.TLS.Clone()
		}
		if tc.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			tc.ServerName = host
		}
		tlsConn := tls.Client(conn, tc)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
		}
		conn = tlsConn
	}
	b := &brokerConn{addr: addr, conn: conn, rd: bufio.NewReaderSize(conn, 64<<10)}
	if err := b.apiVersions(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	if strings.HasPrefix(cfg.Protocol, "SASL_") {
		if err := b.sasl(ctx, cfg); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return b, nil
}

func (b *brokerConn) close() { b.conn.Close() }

// roundTrip sends one request (header v1) and returns the response body
// after the correlation id (response header v0).
func (b *brokerConn) roundTrip(ctx context.Context, key, version int16, body []byte, wait time.Duration) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.corr++
	var e enc
	e.i32(0) // size, patched below
	e.i16(key)
	e.i16(version)
	e.i32(b.corr)
	e.str("salctl")
	e.b = append(e.b, body...)
	binary.BigEndian.PutUint32(e.b, uint32(len(e.b)-4))
	_ = b.conn.SetDeadline(time.Now().Add(wait + 15*time.Second))
	stop := context.AfterFunc(ctx, func() { _ = b.conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := b.conn.Write(e.b); err != nil {
		return nil, b.ctxErr(ctx, err)
	}
	var hdr [8]byte
	if _, err := io.ReadFull(b.rd, hdr[:]); err != nil {
		return nil, b.ctxErr(ctx, err)
	}
	size := int32(binary.BigEndian.Uint32(hdr[:4]))
	if size < 4 || size > 256<<20 {
		return nil, fmt.Errorf("kafka: %s: bad response size %d", b.addr, size)
	}
	if corr := int32(binary.BigEndian.Uint32(hdr[4:])); corr != b.corr {
		return nil, fmt.Errorf("kafka: %s: correlation id %d, want %d", b.addr, corr, b.corr)
	}
	resp := make([]byte, size-4)
	if _, err := io.ReadFull(b.rd, resp); err != nil {
		return nil, b.ctxErr(ctx, err)
	}
	return resp, nil
}

func (b *brokerConn) ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("kafka: %s: %w", b.addr, err)
}

// version picks the highest version of key that both sides implement.
func (b *brokerConn) version(key int16) (int16, error) {
	mine := implemented[key]
	theirs, ok := b.versions[key]
	if !ok {
		return 0, fmt.Errorf("kafka: broker %s does not serve API key %d", b.addr, key)
	}
	v := min(mine[1], theirs[1])
	if v < mine[0] || v < theirs[0] {
		return 0, fmt.Errorf("kafka: broker %s serves versions %d..%d of API key %d; this client implements %d..%d", b.addr, theirs[0], theirs[1], key, mine[0], mine[1])
	}
	return v, nil
}

func (b *brokerConn) apiVersions(ctx context.Context) error {
	resp, err := b.roundTrip(ctx, apiVersions, 0, nil, 0)
	if err != nil {
		return err
	}
	d := &dec{b: resp}
	if code := d.i16(); code != 0 {
		return &kafkaError{code, "ApiVersions"}
	}
	b.versions = map[int16][2]int16{}
	for range d.arr() {
		k, lo, hi := d.i16(), d.i16(), d.i16()
		b.versions[k] = [2]int16{lo, hi}
	}
	return d.err
}

// sasl authenticates with PLAIN or SCRAM-SHA-256/512.
func (b *brokerConn) sasl(ctx context.Context, cfg wireConfig) error {
	mech := cfg.Mechanism
	if mech == "" {
		mech = "SCRAM-SHA-512"
	}
	v, err := b.version(apiSASLHandshake)
	if err != nil {
		return err
	}
	var e enc
	e.str(mech)
	resp, err := b.roundTrip(ctx, apiSASLHandshake, v, e.b, 0)
	if err != nil {
		return err
	}
	d := &dec{b: resp}
	if code := d.i16(); code != 0 {
		var mechs []string
		for range d.arr() {
			mechs = append(mechs, d.str())
		}
		return fmt.Errorf("kafka: %s: SASL mechanism %s refused (broker offers %s): %w", b.addr, mech, strings.Join(mechs, ", "), &kafkaError{code, "SaslHandshake"})
	}
	auth := func(msg []byte) ([]byte, error) {
		av, err := b.version(apiSASLAuth)
		if err != nil {
			return nil, err
		}
		var e enc
		e.bytes(msg)
		resp, err := b.roundTrip(ctx, apiSASLAuth, av, e.b, 0)
		if err != nil {
			return nil, err
		}
		d := &dec{b: resp}
		code := d.i16()
		var emsg string
		if n := d.i16(); n >= 0 {
			emsg = string(d.need(int(n)))
		}
		out := d.bytes()
		if code != 0 {
			return nil, fmt.Errorf("kafka: %s: SASL authentication as %q failed: %s: %w", b.addr, cfg.User, emsg, &kafkaError{code, "SaslAuthenticate"})
		}
		return out, d.err
	}
	switch mech {
	case "PLAIN":
		_, err := auth([]byte("\x00" + cfg.User + "\x00" + cfg.Password))
		return err
	case "SCRAM-SHA-256":
		return scram(auth, sha256.New, cfg.User, cfg.Password)
	case "SCRAM-SHA-512":
		return scram(auth, sha512.New, cfg.User, cfg.Password)
	}
	return fmt.Errorf("kafka: SASL mechanism %q is not implemented here (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)", mech)
}

// scram runs the RFC 5802 client exchange.
func scram(auth func([]byte) ([]byte, error), h func() hash.Hash, user, pass string) error {
	var nb [24]byte
	_, _ = rand.Read(nb[:])
	nonce := base64.RawStdEncoding.EncodeToString(nb[:])
	user = strings.NewReplacer("=", "=3D", ",", "=2C").Replace(user)
	first := "n=" + user + ",r=" + nonce
	sf, err := auth([]byte("n,," + first))
	if err != nil {
		return err
	}
	attrs := map[string]string{}
	for _, kv := range strings.Split(string(sf), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			attrs[k] = v
		}
	}
	salt, err := base64.StdEncoding.DecodeString(attrs["s"])
	iter, ierr := strconv.Atoi(attrs["i"])
	if err != nil || ierr != nil || !strings.HasPrefix(attrs["r"], nonce) {
		return fmt.Errorf("kafka: bad SCRAM server-first message %q", sf)
	}
	salted, err := pbkdf2.Key(h, pass, salt, iter, h().Size())
	if err != nil {
		return err
	}
	mac := func(key []byte, s string) []byte { m := hmac.New(h, key); m.Write([]byte(s)); return m.Sum(nil) }
	clientKey := mac(salted, "Client Key")
	hs := h()
	hs.Write(clientKey)
	stored := hs.Sum(nil)
	final := "c=biws,r=" + attrs["r"]
	authMsg := first + "," + string(sf) + "," + final
	sig := mac(stored, authMsg)
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ sig[i]
	}
	sfinal, err := auth([]byte(final + ",p=" + base64.StdEncoding.EncodeToString(proof)))
	if err != nil {
		return err
	}
	want := "v=" + base64.StdEncoding.EncodeToString(mac(mac(salted, "Server Key"), authMsg))
	if string(sfinal) != want {
		return errors.New("kafka: SCRAM server signature does not match: not the broker we meant")
	}
	return nil
}

// ---------------------------------------------------------------------
// The client: metadata, offsets, fetches.

type tp struct {
	topic string
	part  int32
}

type kclient struct {
	cfg     wireConfig
	mu      sync.Mutex
	conns   map[string]*brokerConn // by address
	brokers map[int32]string       // node id -> address
}

func newKClient(cfg wireConfig) *kclient {
	return &kclient{cfg: cfg, conns: map[string]*brokerConn{}, brokers: map[int32]string{}}
}

func (c *kclient) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.conns {
		b.close()
	}
	c.conns = map[string]*brokerConn{}
}

func (c *kclient) conn(ctx context.Context, addr string) (*brokerConn, error) {
	c.mu.Lock()
	b := c.conns[addr]
	c.mu.Unlock()
	if b != nil {
		return b, nil
	}
	b, err := dialBroker(ctx, c.cfg, addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.conns[addr]; old != nil {
		b.close()
		return old, nil
	}
	c.conns[addr] = b
	return b, nil
}

// drop forgets a connection after an I/O error.
func (c *kclient) drop(b *brokerConn) {
	c.mu.Lock()
	if c.conns[b.addr] == b {
		delete(c.conns, b.addr)
	}
	c.mu.Unlock()
	b.close()
}

// any returns a connection to some broker: a known one, else a seed.
func (c *kclient) any(ctx context.Context) (*brokerConn, error) {
	c.mu.Lock()
	for _, b := range c.conns {
		c.mu.Unlock()
		return b, nil
	}
	c.mu.Unlock()
	var errs []error
	for _, addr := range c.cfg.Brokers {
		b, err := c.conn(ctx, addr)
		if err == nil {
			return b, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, errors.New("kafka: no broker address")
	}
	return nil, errors.Join(errs...)
}

// partInfo is one partition's leader as Metadata reports it.
type partInfo struct {
	part   int32
	leader int32
	err    int16
}

// metadata returns the partitions of each topic, or a per-topic error
// code (errUnknownTopic for a topic that does not exist).
func (c *kclient) metadata(ctx context.Context, names []string) (map[string][]partInfo, map[string]int16, error) {
	b, err := c.any(ctx)
	if err != nil {
		return nil, nil, err
	}
	v, err := b.version(apiMetadata)
	if err != nil {
		return nil, nil, err
	}
	var e enc
	e.i32(int32(len(names)))
	for _, n := range names {
		e.str(n)
	}
	e.boolean(false) // AllowAutoTopicCreation (v4+): never create what we only read
	if v >= 8 {
		e.boolean(false) // IncludeClusterAuthorizedOperations
		e.boolean(false) // IncludeTopicAuthorizedOperations
	}
	resp, err := b.roundTrip(ctx, apiMetadata, v, e.b, 0)
	if err != nil {
		c.drop(b)
		return nil, nil, err
	}
	d := &dec{b: resp}
	d.i32() // throttle
	brokers := map[int32]string{}
	for range d.arr() {
		id, host, port := d.i32(), d.str(), d.i32()
		if n := d.i16(); n > 0 { // rack
			d.need(int(n))
		}
		brokers[id] = net.JoinHostPort(host, strconv.Itoa(int(port)))
	}
	if n := d.i16(); n > 0 { // cluster id
		d.need(int(n))
	}
	d.i32() // controller
	parts := map[string][]partInfo{}
	errs := map[string]int16{}
	for range d.arr() {
		code, name := d.i16(), d.str()
		d.i8() // internal
		var ps []partInfo
		for range d.arr() {
			p := partInfo{err: d.i16(), part: d.i32(), leader: d.i32()}
			if v >= 7 {
				d.i32() // leader epoch
			}
			for range d.arr() { // replicas
				d.i32()
			}
			for range d.arr() { // isr
				d.i32()
			}
			if v >= 5 {
				for range d.arr() { // offline replicas
					d.i32()
				}
			}
			ps = append(ps, p)
		}
		if v >= 8 {
			d.i32() // authorized operations
		}
		if code != 0 {
			errs[name] = code
			continue
		}
		slices.SortFunc(ps, func(a, b partInfo) int { return int(a.part - b.part) })
		parts[name] = ps
	}
	if d.err != nil {
		return nil, nil, fmt.Errorf("kafka: metadata response: %w", d.err)
	}
	c.mu.Lock()
	for id, addr := range brokers {
		c.brokers[id] = addr
	}
	c.mu.Unlock()
	return parts, errs, nil
}

func (c *kclient) leaderConn(ctx context.Context, leader int32) (*brokerConn, error) {
	c.mu.Lock()
	addr, ok := c.brokers[leader]
	c.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("kafka: unknown leader %d", leader)
	}
	return c.conn(ctx, addr)
}

// listOffsets returns the offset at ts (-1 latest, -2 earliest) of each
// partition, asking its leader.
func (c *kclient) listOffsets(ctx context.Context, leader int32, parts []tp, ts int64) (map[tp]int64, error) {
	b, err := c.leaderConn(ctx, leader)
	if err != nil {
		return nil, err
	}
	v, err := b.version(apiListOffsets)
	if err != nil {
		return nil, err
	}
	byTopic := map[string][]int32{}
	var order []string
	for _, p := range parts {
		if _, ok := byTopic[p.topic]; !ok {
			order = append(order, p.topic)
		}
		byTopic[p.topic] = append(byTopic[p.topic], p.part)
	}
	var e enc
	e.i32(-1) // replica id
	if v >= 2 {
		e.i8(0) // read uncommitted
	}
	e.i32(int32(len(order)))
	for _, t := range order {
		e.str(t)
		e.i32(int32(len(byTopic[t])))
		for _, p := range byTopic[t] {
			e.i32(p)
			if v >= 4 {
				e.i32(-1) // current leader epoch
			}
			e.i64(ts)
		}
	}
	resp, err := b.roundTrip(ctx, apiListOffsets, v, e.b, 0)
	if err != nil {
		c.drop(b)
		return nil, err
	}
	d := &dec{b: resp}
	if v >= 2 {
		d.i32() // throttle
	}
	out := map[tp]int64{}
	for range d.arr() {
		t := d.str()
		for range d.arr() {
			p, code := d.i32(), d.i16()
			d.i64() // timestamp
			off := d.i64()
			if v >= 4 {
				d.i32() // leader epoch
			}
			if code != 0 {
				return nil, &kafkaError{code, fmt.Sprintf("ListOffsets %s[%d]", t, p)}
			}
			out[tp{t, p}] = off
		}
	}
	if d.err != nil {
		return nil, fmt.Errorf("kafka: list offsets response: %w", d.err)
	}
	return out, nil
}

// rawRecord is one Kafka record as fetched.
type rawRecord struct {
	Topic     string
	Partition int32
	Offset    int64
	Timestamp time.Time
	Key       []byte
	Value     []byte
	Received  time.Time
}

// fetchResult is what one partition of a fetch returned.
type fetchResult struct {
	records []rawRecord
	next    int64 // the offset to fetch next
	hwm     int64
	logHead int64
	err     int16
	// warnings name the batches skipped because they could not be read.
	warnings []string
}

// fetch fetches the given partitions (all led by leader) from their
// offsets, waiting up to wait for data.
func (c *kclient) fetch(ctx context.Context, leader int32, from map[tp]int64, wait time.Duration) (map[tp]*fetchResult, error) {
	b, err := c.leaderConn(ctx, leader)
	if err != nil {
		return nil, err
	}
	v, err := b.version(apiFetch)
	if err != nil {
		return nil, err
	}
	byTopic := map[string][]int32{}
	var order []string
	for p := range from {
		if _, ok := byTopic[p.topic]; !ok {
			order = append(order, p.topic)
		}
		byTopic[p.topic] = append(byTopic[p.topic], p.part)
	}
	slices.Sort(order)
	var e enc
	e.i32(-1) // replica id
	e.i32(int32(wait / time.Millisecond))
	e.i32(1)        // min bytes
	e.i32(64 << 20) // max bytes
	e.i8(0)         // isolation: read uncommitted
	if v >= 7 {
		e.i32(0)  // session id: no session
		e.i32(-1) // session epoch: full fetch
	}
	e.i32(int32(len(order)))
	for _, t := range order {
		e.str(t)
		ps := byTopic[t]
		slices.Sort(ps)
		e.i32(int32(len(ps)))
		for _, p := range ps {
			e.i32(p)
			if v >= 9 {
				e.i32(-1) // current leader epoch
			}
			e.i64(from[tp{t, p}])
			if v >= 5 {
				e.i64(-1) // log start offset (followers only)
			}
			e.i32(16 << 20) // partition max bytes
		}
	}
	if v >= 7 {
		e.i32(0) // forgotten topics
	}
	if v >= 11 {
		e.str("") // rack
	}
	resp, err := b.roundTrip(ctx, apiFetch, v, e.b, wait)
	if err != nil {
		c.drop(b)
		return nil, err
	}
	now := time.Now()
	d := &dec{b: resp}
	d.i32() // throttle
	if v >= 7 {
		if code := d.i16(); code != 0 {
			return nil, &kafkaError{code, "Fetch"}
		}
		d.i32() // session id
	}
	out := map[tp]*fetchResult{}
	for range d.arr() {
		t := d.str()
		for range d.arr() {
			p := d.i32()
			r := &fetchResult{err: d.i16(), hwm: d.i64(), logHead: -1}
			d.i64() // last stable offset
			if v >= 5 {
				r.logHead = d.i64()
			}
			for range d.arr() { // aborted transactions
				d.i64()
				d.i64()
			}
			if v >= 11 {
				d.i32() // preferred read replica
			}
			batches := d.bytes()
			if d.err != nil {
				break
			}
			k := tp{t, p}
			r.next = from[k]
			if r.err == 0 {
				if err := parseBatches(batches, k, r, now); err != nil {
					return nil, fmt.Errorf("kafka: %s[%d]: %w", t, p, err)
				}
			}
			out[k] = r
		}
	}
	if d.err != nil {
		return nil, fmt.Errorf("kafka: fetch response: %w", d.err)
	}
	return out, nil
}

// parseBatches decodes record batches (magic 2) into r, skipping records
// before r.next and control batches, and advances r.next past every whole
// batch. A truncated last batch is left for the next fetch.
func parseBatches(b []byte, k tp, r *fetchResult, now time.Time) error {
	for len(b) >= 17 {
		base := int64(binary.BigEndian.Uint64(b))
		length := int(int32(binary.BigEndian.Uint32(b[8:])))
		if length < 0 || len(b) < 12+length {
			return nil // truncated: the rest comes with the next fetch
		}
		batch := b[12 : 12+length]
		b = b[12+length:]
		if magic := batch[4]; magic != 2 {
			return fmt.Errorf("record batch magic %d: only magic 2 (Kafka >= 0.11) is supported", magic)
		}
		d := &dec{b: batch[5:]} // after leader epoch and magic
		d.i32()                 // crc
		attrs := d.i16()
		lastDelta := d.i32()
		firstTS := d.i64()
		d.i64() // max timestamp
		d.i64() // producer id
		d.i16() // producer epoch
		d.i32() // base sequence
		count := d.i32()
		if d.err != nil {
			return d.err
		}
		next := base + int64(lastDelta) + 1
		if attrs&0x20 != 0 { // control batch (transaction markers)
			r.next = max(r.next, next)
			continue
		}
		body, err := decompress(int(attrs&7), d.b)
		if err != nil {
			// Skip what cannot be read, say so, and go on.
			r.warnings = append(r.warnings, fmt.Sprintf("%s[%d]: skipped %d records at offsets %d..%d: %v", k.topic, k.part, count, base, next-1, err))
			r.next = max(r.next, next)
			continue
		}
		rd := &dec{b: body}
		for i := int32(0); i < count && rd.err == nil; i++ {
			size := rd.varint()
			rec := &dec{b: rd.need(int(size))}
			if rd.err != nil {
				break
			}
			rec.i8() // attributes
			tsDelta := rec.varint()
			offDelta := rec.varint()
			var key, val []byte
			if n := rec.varint(); n >= 0 {
				key = rec.need(int(n))
			}
			if n := rec.varint(); n >= 0 {
				val = rec.need(int(n))
			}
			if rec.err != nil {
				return fmt.Errorf("bad record in batch at offset %d: %w", base, rec.err)
			}
			off := base + offDelta
			if off < r.next {
				continue
			}
			r.records = append(r.records, rawRecord{
				Topic: k.topic, Partition: k.part, Offset: off,
				Timestamp: time.UnixMilli(firstTS + tsDelta), Key: key, Value: val, Received: now,
			})
		}
		if rd.err != nil {
			return fmt.Errorf("bad records in batch at offset %d: %w", base, rd.err)
		}
		r.next = max(r.next, next)
	}
	return nil
}

// ---------------------------------------------------------------------
// A consumer of whole topics.

// consumer follows every partition of some topics from chosen offsets.
type consumer struct {
	cl      *kclient
	pos     map[tp]int64
	leader  map[tp]int32
	missing []string // topics that do not exist yet
	back    int64    // records to go back from the end at start (0: the end)
	notify  func(string)
}

// newConsumer starts following topics from their ends, or back records
// before their ends (per partition). Topics that do not exist yet are
// followed from their beginnings once they appear; notify (may be nil)
// hears about those.
func newConsumer(ctx context.Context, cfg wireConfig, names []string, back int64, notify func(string)) (*consumer, error) {
	c := &consumer{cl: newKClient(cfg), pos: map[tp]int64{}, leader: map[tp]int32{}, back: back, notify: notify}
	if notify == nil {
		c.notify = func(string) {}
	}
	if err := c.discover(ctx, names, true); err != nil {
		c.cl.close()
		return nil, err
	}
	return c, nil
}

func (c *consumer) close() { c.cl.close() }

// positions returns the offsets the consumer will fetch next.
func (c *consumer) positions() map[tp]int64 { return c.pos }

// discover looks up topics and positions their partitions. At start
// (initial) they start at the end (minus back); later, from the beginning.
func (c *consumer) discover(ctx context.Context, names []string, initial bool) error {
	parts, errs, err := c.cl.metadata(ctx, names)
	if err != nil {
		return err
	}
	c.missing = c.missing[:0]
	byLeader := map[int32][]tp{}
	for _, n := range names {
		if code, bad := errs[n]; bad {
			if code == errUnknownTopic || code == errLeaderNotAvail {
				c.missing = append(c.missing, n)
				if initial {
					c.notify(fmt.Sprintf("topic %s does not exist yet: waiting for it", n))
				}
				continue
			}
			return &kafkaError{code, "Metadata " + n}
		}
		for _, p := range parts[n] {
			k := tp{n, p.part}
			c.leader[k] = p.leader
			if _, known := c.pos[k]; !known {
				byLeader[p.leader] = append(byLeader[p.leader], k)
			}
		}
	}
	for leader, ks := range byLeader {
		if !initial {
			for _, k := range ks {
				c.pos[k] = 0 // appeared while we waited: everything is new
				c.notify(fmt.Sprintf("topic %s appeared", k.topic))
			}
			continue
		}
		ends, err := c.cl.listOffsets(ctx, leader, ks, -1)
		if err != nil {
			return err
		}
		var starts map[tp]int64
		if c.back > 0 {
			if starts, err = c.cl.listOffsets(ctx, leader, ks, -2); err != nil {
				return err
			}
		}
		for _, k := range ks {
			off := ends[k]
			if c.back > 0 {
				off = max(starts[k], off-c.back)
			}
			c.pos[k] = off
		}
	}
	return nil
}

// ends returns the current end offsets (high watermarks) of every
// partition followed.
func (c *consumer) ends(ctx context.Context) (map[tp]int64, error) {
	byLeader := map[int32][]tp{}
	for k := range c.pos {
		byLeader[c.leader[k]] = append(byLeader[c.leader[k]], k)
	}
	out := map[tp]int64{}
	for leader, ks := range byLeader {
		m, err := c.cl.listOffsets(ctx, leader, ks, -1)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			out[k] = v
		}
	}
	return out, nil
}

// poll waits up to wait for new records and returns them.
func (c *consumer) poll(ctx context.Context, wait time.Duration) ([]rawRecord, error) {
	if len(c.missing) > 0 {
		if err := c.discover(ctx, slices.Clone(c.missing), false); err != nil {
			return nil, err
		}
	}
	if len(c.pos) == 0 {
		select {
		case <-time.After(min(wait, 500*time.Millisecond)):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, nil
	}
	byLeader := map[int32]map[tp]int64{}
	for k, off := range c.pos {
		l := c.leader[k]
		if byLeader[l] == nil {
			byLeader[l] = map[tp]int64{}
		}
		byLeader[l][k] = off
	}
	type res struct {
		m   map[tp]*fetchResult
		err error
	}
	ch := make(chan res, len(byLeader))
	for l, from := range byLeader {
		go func() {
			m, err := c.cl.fetch(ctx, l, from, wait)
			ch <- res{m, err}
		}()
	}
	var out []rawRecord
	var firstErr error
	refresh := false
	for range byLeader {
		r := <-ch
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
			}
			refresh = true
			continue
		}
		for k, fr := range r.m {
			switch fr.err {
			case 0:
				for _, w := range fr.warnings {
					c.notify(w)
				}
				out = append(out, fr.records...)
				c.pos[k] = fr.next
			case errOffsetOutOfRange:
				// Deleted by retention or compaction under us: go on from
				// the oldest record left.
				if m, err := c.cl.listOffsets(ctx, c.leader[k], []tp{k}, -2); err == nil {
					c.pos[k] = m[k]
				}
			case errNotLeader, errLeaderNotAvail, errUnknownTopic, errFencedLeaderEpoch, errUnknownLeaderEp:
				refresh = true
			default:
				return out, &kafkaError{fr.err, fmt.Sprintf("Fetch %s[%d]", k.topic, k.part)}
			}
		}
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if refresh {
		names := map[string]bool{}
		for k := range c.pos {
			names[k.topic] = true
		}
		var list []string
		for n := range names {
			list = append(list, n)
		}
		if parts, _, err := c.cl.metadata(ctx, list); err == nil {
			for n, ps := range parts {
				for _, p := range ps {
					c.leader[tp{n, p.part}] = p.leader
				}
			}
		} else if firstErr == nil {
			firstErr = err
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return out, ctx.Err()
		}
		if len(out) == 0 && firstErr != nil {
			return nil, firstErr
		}
	}
	return out, nil
}
