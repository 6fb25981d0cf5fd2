package sal

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/registry"
	salxml "github.com/lsst-sal/salgo/xml"
)

// SchemaStatus is the outcome of comparing a topic's schema from the
// definitions with the version registered under its subject.
type SchemaStatus int

// The outcomes. Incompatible and Orphan are the hazards.
const (
	// SchemaIdentical: the registered schema is the same (the same text,
	// or the same JSON value, or the version the registry finds it as).
	SchemaIdentical SchemaStatus = iota
	// SchemaCompatible: different text, data reads both ways.
	SchemaCompatible
	// SchemaBackward: new readers read old data, but not the reverse.
	SchemaBackward
	// SchemaForward: old readers read new data, but not the reverse.
	SchemaForward
	// SchemaIncompatible: neither way (a type or array length changed).
	SchemaIncompatible
	// SchemaNew: nothing is registered for this topic yet.
	SchemaNew
	// SchemaOrphan: a subject of the component is registered but no topic
	// of the definitions has it (the topic was renamed or removed).
	SchemaOrphan
)

var statusNames = [...]string{"identical", "compatible", "backward-only", "forward-only", "INCOMPATIBLE", "new", "ORPHAN"}

func (s SchemaStatus) String() string { return statusNames[s] }

// Hazard reports whether the status breaks readers in production.
func (s SchemaStatus) Hazard() bool {
	return s == SchemaIncompatible || s == SchemaOrphan || s == SchemaBackward || s == SchemaForward
}

// SchemaCheck is the result for one topic (or one orphan subject).
type SchemaCheck struct {
	Component string
	Topic     string // SAL name; empty for an orphan
	Subject   string
	Status    SchemaStatus
	// Version and ID of the registered schema compared with.
	Version, ID int
	// Reason explains a status other than identical, compatible or new.
	Reason string
}

// CheckSchemas compares, for every topic of the named components (all
// components of defs when none are named), the schema the definitions
// produce with the newest version registered under its subject in the
// Bus's registry, and lists subjects of those components that no topic
// has any more. It changes nothing in the registry.
func (b *Bus) CheckSchemas(ctx context.Context, defs *salxml.Definitions, components ...string) ([]SchemaCheck, error) {
	cfg := b.Config()
	return CheckSchemasAt(ctx, cfg.RegistryURL, cfg.Subname, defs, components...)
}

// CheckSchemasAt is Bus.CheckSchemas for a registry URL and topic subname,
// without a Kafka connection.
func CheckSchemasAt(ctx context.Context, registryURL, subname string, defs *salxml.Definitions, components ...string) ([]SchemaCheck, error) {
	reg, err := registry.New(registryURL, nil, 0)
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	return checkSchemas(ctx, reg, subname, defs, components...)
}

func checkSchemas(ctx context.Context, reg *registry.Client, subname string, defs *salxml.Definitions, components ...string) ([]SchemaCheck, error) {
	if len(components) == 0 {
		components = defs.Names()
	}
	subjects, err := reg.Subjects(ctx)
	if err != nil {
		return nil, err
	}
	var out []SchemaCheck
	for _, name := range components {
		comp, err := defs.Component(name)
		if err != nil {
			return nil, err
		}
		known := map[string]bool{}
		for _, t := range comp.Topics {
			subj := t.Subject(subname)
			known[subj] = true
			c := SchemaCheck{Component: comp.Name, Topic: t.SALName, Subject: subj}
			newest, err := reg.Newest(ctx, subj, t.AvroSchema())
			if err != nil {
				return nil, err
			}
			c.Version, c.ID = newest.Version, newest.ID
			switch {
			case !newest.Found:
				c.Status = SchemaNew
			case newest.Same:
				c.Status = SchemaIdentical
			default:
				cmp, err := codec.Compare(t.AvroSchema(), newest.Schema)
				if err != nil {
					c.Status, c.Reason = SchemaIncompatible, err.Error()
					break
				}
				switch {
				case cmp.Backward == nil && cmp.Forward == nil:
					c.Status = SchemaCompatible
				case cmp.Backward == nil:
					c.Status, c.Reason = SchemaBackward, "old readers cannot read new data: "+cmp.Forward.Error()
				case cmp.Forward == nil:
					c.Status, c.Reason = SchemaForward, "new readers cannot read old data: "+cmp.Backward.Error()
				default:
					c.Status, c.Reason = SchemaIncompatible, cmp.Backward.Error()
				}
			}
			out = append(out, c)
		}
		prefix := "lsst." + subname + "." + comp.Name + "."
		var orphans []string
		for _, s := range subjects {
			if strings.HasPrefix(s, prefix) && strings.HasSuffix(s, "-value") && !known[s] {
				orphans = append(orphans, s)
			}
		}
		sort.Strings(orphans)
		for _, s := range orphans {
			out = append(out, SchemaCheck{Component: comp.Name, Subject: s, Status: SchemaOrphan,
				Reason: fmt.Sprintf("registered, but %s has no such topic (renamed or removed?)", comp.Name)})
		}
	}
	return out, nil
}
