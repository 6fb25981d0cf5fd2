package topics

// Instances returns the Domain's open Instances (Remotes, Controllers and
// bare ones), in no particular order: a SAL script lists the components it
// uses from them (ts_salobj's domain.salinfo_set).
func (d *Domain) Instances() []*Instance {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*Instance, 0, len(d.instances))
	for in := range d.instances {
		out = append(out, in)
	}
	return out
}
