package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// registry fetches writer schemas by id from a Confluent-compatible schema
// registry (GET /schemas/ids/{id}), once per id.
type registry struct {
	url  string
	http *http.Client
	mu   sync.Mutex
	byID map[int32]*writerSchema
}

// writerSchema is one registered schema, parsed.
type writerSchema struct {
	id   int32
	text string
	typ  *avroType
}

func newRegistry(url string) *registry {
	return &registry{url: strings.TrimRight(url, "/"), http: &http.Client{Timeout: 15 * time.Second}, byID: map[int32]*writerSchema{}}
}

func (r *registry) schema(ctx context.Context, id int32) (*writerSchema, error) {
	r.mu.Lock()
	s := r.byID[id]
	r.mu.Unlock()
	if s != nil {
		return s, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url+"/schemas/ids/"+strconv.Itoa(int(id)), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	resp, err := r.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("schema registry: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("schema registry: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("schema registry: GET %s: %s: %s", req.URL, resp.Status, strings.TrimSpace(string(body)))
	}
	var doc struct {
		Schema     string `json:"schema"`
		SchemaType string `json:"schemaType"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("schema registry: schema id %d: %w", id, err)
	}
	if doc.SchemaType != "" && doc.SchemaType != "AVRO" {
		return nil, fmt.Errorf("schema id %d is a %s schema, not Avro", id, doc.SchemaType)
	}
	t, err := parseAvro(doc.Schema)
	if err != nil {
		return nil, fmt.Errorf("schema id %d: %w", id, err)
	}
	s = &writerSchema{id: id, text: doc.Schema, typ: t}
	r.mu.Lock()
	r.byID[id] = s
	r.mu.Unlock()
	return s, nil
}

var errNotFramed = errors.New("not Confluent-framed Avro (no magic byte 0 and schema id)")

// splitFrame splits a Confluent-framed value: magic 0, a big-endian schema
// id, then the Avro body.
func splitFrame(v []byte) (int32, []byte, error) {
	if len(v) < 5 || v[0] != 0 {
		return 0, nil, errNotFramed
	}
	return int32(binary.BigEndian.Uint32(v[1:5])), v[5:], nil
}

// decodeValue decodes a record value with its writer's schema.
func (r *registry) decodeValue(ctx context.Context, v []byte) (*writerSchema, any, error) {
	id, body, err := splitFrame(v)
	if err != nil {
		return nil, nil, err
	}
	s, err := r.schema(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	val, err := decodeAvro(s.typ, body)
	if err != nil {
		return s, nil, fmt.Errorf("schema id %d (%s): %w", id, s.typ.name, err)
	}
	return s, val, nil
}
