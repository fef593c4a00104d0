package mockdcontainer

import (
	"net"
	"os"
	"testing"

	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// TestMain switches off Ryuk, testcontainers' reaper, before the first
// testcontainers call (its configuration is read once): the reaper's image
// cannot be pulled where there is no registry, and every test here
// terminates its containers itself. An explicit
// TESTCONTAINERS_RYUK_DISABLED=false in the environment is respected.
func TestMain(m *testing.M) {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" && engineInThisNetwork() {
		os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	}
	if os.Getenv("MOCKD_TESTCONTAINERS_LOG") == "" {
		tclog.SetDefault(tclog.NewNoopLogger())
	}
	os.Exit(m.Run())
}

// engineInThisNetwork reports whether the Docker engine's default bridge
// (docker0) is an interface of this network namespace: the engine runs
// here, so published ports answer on localhost. testcontainers assumes
// otherwise inside a container (it sees /.dockerenv and dials the default
// gateway), which fails where the engine runs inside that same container
// (Docker in Docker, as on the CI machine).
func engineInThisNetwork() bool {
	_, err := os.Stat("/.dockerenv")
	if err != nil {
		return false
	}
	_, err = net.InterfaceByName("docker0")
	return err == nil
}

// imageOpts runs the image named by MOCKD_IMAGE (e.g. mockd:dev from
// scripts/build-image.sh, as .ci/run does, so that the tests check the
// image CI ships) or, when unset, builds one from this repository.
// Further options follow it.
func imageOpts(more ...testcontainers.ContainerCustomizer) []testcontainers.ContainerCustomizer {
	var opts []testcontainers.ContainerCustomizer
	if img := os.Getenv("MOCKD_IMAGE"); img != "" {
		opts = append(opts, WithImage(img))
	}
	return append(opts, more...)
}
