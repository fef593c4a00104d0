package mockdcontainer

import (
	"os"
	"testing"

	tclog "github.com/testcontainers/testcontainers-go/log"
)

// TestMain switches off Ryuk, testcontainers' reaper, before the first
// testcontainers call (its configuration is read once): the reaper's image
// cannot be pulled where there is no registry, and every test here
// terminates its containers itself. An explicit
// TESTCONTAINERS_RYUK_DISABLED=false in the environment is respected. (The
// host at which containers answer is the module's business: see
// reachableHost.)
func TestMain(m *testing.M) {
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if os.Getenv("MOCKD_TESTCONTAINERS_LOG") == "" {
		tclog.SetDefault(tclog.NewNoopLogger())
	}
	os.Exit(m.Run())
}

// imageOpts runs the image named by MOCKD_IMAGE (e.g. mockd:dev from
// scripts/build-image.sh, as .ci/run does, so that the tests check the
// image CI ships) or, when unset, builds one from this repository.
// Further options follow it.
func imageOpts(more ...Option) []Option {
	var opts []Option
	if img := os.Getenv("MOCKD_IMAGE"); img != "" {
		opts = append(opts, WithImage(img))
	}
	return append(opts, more...)
}
