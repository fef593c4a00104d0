package mockdcontainer

import (
	"context"
	"net"
	"os"
	"strings"
)

// reachableHost is the host at which this process reaches the ports a
// container publishes: testcontainers' answer, except where it is known to
// be wrong. Inside a container testcontainers dials the default gateway;
// where the Docker engine runs in this same network namespace (Docker in
// Docker, as on many CI machines: the engine's docker0 bridge is one of
// our interfaces) the published ports answer on the loopback address
// instead. TESTCONTAINERS_HOST_OVERRIDE, when set, always wins.
func reachableHost(ctx context.Context, c interface {
	Host(context.Context) (string, error)
}) (string, error) {
	if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); !set && engineInThisNetwork(os.Getenv("DOCKER_HOST"), "/.dockerenv", interfaceExists) {
		return "127.0.0.1", nil
	}
	return c.Host(ctx)
}

// engineInThisNetwork reports whether this process runs in a container
// (marker is /.dockerenv) whose network namespace holds the bridge of a
// local Docker engine (docker0), reached through a local socket.
func engineInThisNetwork(dockerHost, marker string, ifaceExists func(string) bool) bool {
	if dockerHost != "" && !strings.HasPrefix(dockerHost, "unix://") {
		return false // a remote engine publishes ports on its own host
	}
	if _, err := os.Stat(marker); err != nil {
		return false
	}
	return ifaceExists("docker0")
}

func interfaceExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}
