package salgen

import (
	salxml "github.com/lsst-sal/salgo/xml"
)

// remoteFile writes remote.go.
func (p *pkg) remoteFile() (File, error) {
	var b buf
	c := p.comp.Name
	b.p("// Remote is a remote.Remote of %s with typed readers and commands:", c)
	b.p("// an accessor per event and telemetry topic it reads, and a method per")
	b.p("// command.")
	b.p("type Remote struct {")
	b.p("*remote.Remote")
	for _, r := range p.records {
		if r.t.Kind == salxml.Event || r.t.Kind == salxml.Telemetry {
			b.p("%s *topics.TypedReader[*%s]", r.fieldName, r.typeName)
		}
	}
	b.p("}")
	b.p("")
	b.p("// NewRemote makes a Remote of %s with SAL index index on d (see", c)
	b.p("// remote.New): Use(d), then remote.New with remote.WithRecords(RecordTypes...)")
	b.p("// before opts.")
	b.p("func NewRemote(d *topics.Domain, index int, opts ...remote.Option) (*Remote, error) {")
	b.p("if _, err := Use(d); err != nil {")
	b.p("return nil, err")
	b.p("}")
	b.p("rr, err := remote.New(d, Name, index, append([]remote.Option{remote.WithRecords(RecordTypes...)}, opts...)...)")
	b.p("if err != nil {")
	b.p("return nil, err")
	b.p("}")
	b.p("r := &Remote{Remote: rr}")
	b.p("for _, err := range []error{")
	for _, r := range p.records {
		switch r.t.Kind {
		case salxml.Event:
			b.p("topics.SetTypedReader(rr.Event, %s, &r.%s),", quote(r.t.Name()), r.fieldName)
		case salxml.Telemetry:
			b.p("topics.SetTypedReader(rr.Telemetry, %s, &r.%s),", quote(r.t.Name()), r.fieldName)
		}
	}
	b.p("} {")
	b.p("if err != nil {")
	b.p("rr.Close()")
	b.p("return nil, err")
	b.p("}")
	b.p("}")
	b.p("return r, nil")
	b.p("}")
	for _, r := range p.records {
		switch r.t.Kind {
		case salxml.Event, salxml.Telemetry:
			b.p("")
			b.p("// %s returns the reader of the %s, or nil when the Remote does not read it.", r.remoteName, kindDoc(r.t))
			b.p("func (r *Remote) %s() *topics.TypedReader[*%s] { return r.%s }", r.remoteName, r.typeName, r.fieldName)
		case salxml.Command:
			b.p("")
			b.p("// %s sends the command %s and waits for its final acknowledgement", r.remoteName, r.t.Name())
			b.p("// (remote.Remote.Command); data nil sends every field zero.")
			b.p("func (r *Remote) %s(ctx context.Context, data *%s, opts ...remote.CommandOption) (*topics.Ack, error) {", r.remoteName, r.typeName)
			b.p("if data == nil {")
			b.p("data = new(%s)", r.typeName)
			b.p("}")
			b.p("params := make(map[string]any, %d)", len(r.fields))
			b.p("data.ToMap(params, false)")
			b.p("return r.Remote.Command(ctx, %s, params, opts...)", quote(r.t.Name()))
			b.p("}")
		}
	}
	return p.file("remote.go", []string{`"context"`, "", quote(modPath + "/remote"), quote(modPath + "/topics")}, &b)
}

// controllerFile writes controller.go.
func (p *pkg) controllerFile() (File, error) {
	var b buf
	c := p.comp.Name
	for _, role := range []struct {
		typ, embed, ctor, ctorOpt, doc string
		own                            bool
	}{
		{"CSC", "controller.CSC", "controller.NewCSC", "controller.CSCOption", "a controller.CSC", true},
		{"Controller", "controller.Controller", "controller.New", "controller.Option", "a controller.Controller", false},
	} {
		name := func(r *record) string {
			if role.own {
				return r.cscName
			}
			return r.ctrlName
		}
		handler := func(r *record) string {
			if role.own {
				return r.cscHandler
			}
			return r.ctrlHandler
		}
		b.p("")
		b.p("// %s is %s of %s with typed writers and command handlers: an", role.typ, role.doc, c)
		b.p("// accessor per event and telemetry topic, and a Handle method per")
		if role.own {
			b.p("// command of the component's own (the generic commands are the CSC's).")
		} else {
			b.p("// command.")
		}
		b.p("type %s struct {", role.typ)
		b.p("*%s", role.embed)
		b.p("salgenWriters")
		b.p("}")
		b.p("")
		b.p("// New%s makes a %s of %s with SAL index index on d (see %s),", role.typ, role.typ, c, role.ctor)
		b.p("// after Use(d).")
		b.p("func New%s(d *topics.Domain, index int, opts ...%s) (*%s, error) {", role.typ, role.ctorOpt, role.typ)
		b.p("if _, err := Use(d); err != nil {")
		b.p("return nil, err")
		b.p("}")
		b.p("x, err := %s(d, Name, index, opts...)", role.ctor)
		b.p("if err != nil {")
		b.p("return nil, err")
		b.p("}")
		b.p("c := &%s{%s: x}", role.typ, role.typ)
		b.p("if err := c.setWriters(x.Event, x.Telemetry); err != nil {")
		b.p("x.Close()")
		b.p("return nil, err")
		b.p("}")
		b.p("return c, nil")
		b.p("}")
		for _, r := range p.records {
			switch r.t.Kind {
			case salxml.Event, salxml.Telemetry:
				b.p("")
				b.p("// %s returns the writer of the %s, or nil when the %s does not write it.", name(r), kindDoc(r.t), role.typ)
				b.p("func (c *%s) %s() *topics.TypedWriter[*%s] { return c.%s }", role.typ, name(r), r.typeName, r.fieldName)
			case salxml.Command:
				h := handler(r)
				if h == "" {
					continue
				}
				b.p("")
				b.p("// %s sets the handler of the command %s (HandleFunc): fn gets the", h, r.t.Name())
				b.p("// command's data as a %s; an error from FromMap is the handler's error.", r.typeName)
				b.p("func (c *%s) %s(fn func(ctx context.Context, cmd *controller.Command, data *%s) error) error {", role.typ, h, r.typeName)
				b.p("return c.%s.HandleFunc(%s, controller.RecordHandler(fn))", role.typ, quote(r.t.Name()))
				b.p("}")
			}
		}
	}
	b.p("")
	b.p("// salgenWriters are the typed writers of CSC and Controller.")
	b.p("type salgenWriters struct {")
	for _, r := range p.records {
		if r.t.Kind == salxml.Event || r.t.Kind == salxml.Telemetry {
			b.p("%s *topics.TypedWriter[*%s]", r.fieldName, r.typeName)
		}
	}
	b.p("}")
	b.p("")
	b.p("// setWriters makes the typed writer of every topic event and tel (the")
	b.p("// role's Event and Telemetry methods) have.")
	b.p("func (w *salgenWriters) setWriters(event, tel func(string) (*topics.Writer, error)) error {")
	b.p("for _, err := range []error{")
	for _, r := range p.records {
		switch r.t.Kind {
		case salxml.Event:
			b.p("topics.SetTypedWriter(event, %s, &w.%s),", quote(r.t.Name()), r.fieldName)
		case salxml.Telemetry:
			b.p("topics.SetTypedWriter(tel, %s, &w.%s),", quote(r.t.Name()), r.fieldName)
		}
	}
	b.p("} {")
	b.p("if err != nil {")
	b.p("return err")
	b.p("}")
	b.p("}")
	b.p("return nil")
	b.p("}")
	return p.file("controller.go", []string{`"context"`, "", quote(modPath + "/controller"), quote(modPath + "/topics")}, &b)
}
