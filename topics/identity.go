package topics

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"
)

// userHost is ts_salobj's get_user_host: getpass.getuser() + "@" +
// socket.getfqdn(), found once per process.
var userHost = sync.OnceValue(func() string { return pyGetUser() + "@" + pyGetFQDN() })

// pyGetUser is Python's getpass.getuser: the first of LOGNAME, USER,
// LNAME and USERNAME that is set and not empty, else the account name of
// the process's user.
func pyGetUser() string {
	for _, k := range []string{"LOGNAME", "USER", "LNAME", "USERNAME"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// fqdnTimeout bounds the name lookups of pyGetFQDN (Python's have none),
// so that a resolver that does not answer cannot stall NewDomain.
const fqdnTimeout = 2 * time.Second

// pyGetFQDN is Python's socket.getfqdn() for this host.
func pyGetFQDN() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return "localhost"
	}
	ctx, cancel := context.WithTimeout(context.Background(), fqdnTimeout)
	defer cancel()
	hosts, _ := os.ReadFile("/etc/hosts")
	return fqdn(host,
		func(h string) ([]string, error) { return net.DefaultResolver.LookupHost(ctx, h) },
		string(hosts),
		func(a string) ([]string, error) { return net.DefaultResolver.LookupAddr(ctx, a) })
}

// fqdn is socket.getfqdn(host): gethostbyaddr(host) resolves host to its
// first address and that address to its canonical name and aliases; the
// first of those with a dot is the answer, else the canonical name; if
// host does not resolve, host itself. As glibc's gethostbyaddr, the
// names come from the first line of the hosts file (its text, hosts) that
// holds the address, else from the resolver (lookupAddr, a PTR lookup).
func fqdn(host string, lookupHost func(string) ([]string, error), hosts string, lookupAddr func(string) ([]string, error)) string {
	addrs, err := lookupHost(host)
	if err != nil || len(addrs) == 0 {
		return host
	}
	names := hostsNames(hosts, addrs[0])
	if names == nil {
		ptr, err := lookupAddr(addrs[0])
		if err != nil {
			return host
		}
		for _, n := range ptr {
			if n = strings.TrimSuffix(n, "."); n != "" {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return host
	}
	for _, n := range names {
		if strings.Contains(n, ".") {
			return n
		}
	}
	return names[0]
}

// hostsNames returns the names of the first line of a hosts file that
// holds addr, or nil.
func hostsNames(hosts, addr string) []string {
	want, err := netip.ParseAddr(addr)
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(hosts, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if a, err := netip.ParseAddr(f[0]); err == nil && a.Unmap() == want.Unmap() {
			return f[1:]
		}
	}
	return nil
}
