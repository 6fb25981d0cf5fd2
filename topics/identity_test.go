package topics_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/topics"
)

// TestUserHost_AsPython: the default identity is what ts_salobj's
// get_user_host gives, getpass.getuser()@socket.getfqdn(), checked
// against the Python on this machine.
func TestUserHost_AsPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to compare with")
	}
	out, err := exec.Command(py, "-c", "import getpass, socket; print(f'{getpass.getuser()}@{socket.getfqdn()}')").Output()
	if err != nil {
		t.Skipf("python3: %v", err)
	}
	want := strings.TrimSpace(string(out))
	d := newDomain(t, nil)
	if got := d.UserHost(); got != want {
		t.Errorf("UserHost %q, Python's user@fqdn %q", got, want)
	}
}

// TestFQDN: socket.getfqdn's choice: the first name with a dot among the
// host's address's canonical name and aliases, else the canonical name;
// the host name itself when it does not resolve.
func TestFQDN(t *testing.T) {
	cases := []struct {
		name  string
		host  string
		addrs []string
		hosts string // /etc/hosts
		ptr   []string
		want  string
	}{
		{"hosts file, dotted canonical name", "vm", []string{"127.0.1.1"}, "127.0.0.1 localhost\n127.0.1.1 vm.example.org vm\n", nil, "vm.example.org"},
		{"hosts file, dotted alias", "vm", []string{"10.0.0.2"}, "10.0.0.2 vm vm.example.org # the host\n", nil, "vm.example.org"},
		{"hosts file, first line only", "vm", []string{"127.0.0.1"}, "127.0.0.1 localhost\n127.0.0.1 vm.example.org vm\n", nil, "localhost"},
		{"DNS", "vm", []string{"192.0.2.7"}, "127.0.0.1 localhost\n", []string{"vm.example.org."}, "vm.example.org"},
		{"DNS, no dot", "vm", []string{"192.0.2.7"}, "", []string{"box."}, "box"},
		{"no address", "vm", nil, "", nil, "vm"},
		{"no reverse name", "vm", []string{"192.0.2.7"}, "", nil, "vm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := topics.FQDN(c.host, func(string) ([]string, error) { return c.addrs, nil }, c.hosts,
				func(string) ([]string, error) { return c.ptr, nil })
			if got != c.want {
				t.Errorf("%q", got)
			}
		})
	}
}

// TestDefaultIdentity: Instances made without an identity take the
// Domain's default identity, user@fqdn until it is set (as a CSC sets it
// to its own), explicit identities stay.
func TestDefaultIdentity(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	if d.DefaultIdentity() != d.UserHost() || !strings.Contains(d.UserHost(), "@") {
		t.Errorf("default identity %q, user@host %q", d.DefaultIdentity(), d.UserHost())
	}
	before, _ := d.NewInstance(comp, 1, "")
	d.SetDefaultIdentity("Example:5")
	after, _ := d.NewInstance(comp, 1, "")
	explicit, _ := d.NewInstance(comp, 1, "me@there")
	for _, c := range []struct {
		in   *topics.Instance
		want string
	}{{before, d.UserHost()}, {after, "Example:5"}, {explicit, "me@there"}} {
		if got := c.in.Identity(); got != c.want {
			t.Errorf("identity %q, want %q", got, c.want)
		}
		c.in.Close()
	}
}
