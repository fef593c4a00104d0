#!/bin/sh
# Run every test of the Go modules (go.work joins them): the main module
# (the README's Python example runs too when python3 is present), the web
# console's browser tests (console/browsertest), the nested mockdcontainer
# module (these with the race detector when cgo works) and the load
# benchmark's module (bench/). When a Docker engine answers, the mockd image
# is built first and the container tests run against it (MOCKD_IMAGE),
# except the ones that build the image the way a consumer's Start(t) does;
# without one they skip with a message and the rest still runs.
# mockdcontainer's TestConsumerModule builds a consumer module from a
# file-system module proxy of the working tree, offline. The console's
# browser tests need Chromium and skip without it (unless
# MOCKD_REQUIRE_BROWSER=1). The load
# benchmark's smoke run (about 20 s) needs wrk on PATH and skips without it.
# Every fuzz target of the main module runs briefly (scripts/fuzz.sh).
#
# The clients' tests (clients/python with Debian's python3-pytest,
# clients/js with node --test) run against a mockd built from the tree when
# their tools are there, and skip with a message otherwise.
#
# It takes about 7 minutes on a quiet 2-core machine, up to 20 on a busy
# one. --quick is the development loop: no race detector, no fuzzing, no
# image build and no container tests.
#
#	scripts/test.sh [--quick]  (extra arguments go to every go test call)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick=
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
	FUZZTIME=0x
fi

# The reaper image of testcontainers cannot be pulled without a registry.
export TESTCONTAINERS_RYUK_DISABLED=true

# The race detector needs cgo, and so a C compiler: on a machine with only
# Go installed, the tests run without it.
race=-race
if [ -n "$quick" ]; then
	race=
elif [ "$(go env CGO_ENABLED)" != 1 ]; then
	echo "scripts/test.sh: cgo is off (no C compiler found): testing without the race detector" >&2
	race=
fi

go vet ./...
go test $race -count=1 "$@" ./...

# A short seeded run of every fuzz target (about a minute in all;
# FUZZTIME=0x skips it, docs/security.md#fuzzing for a longer run).
if [ "${FUZZTIME:-}" != 0x ]; then
	scripts/fuzz.sh
fi

# The web console in a headless Chromium (a module of its own, so that the
# browser driver stays out of the main module).
cd "$root/console/browsertest"
go vet ./...
go test $race -count=1 "$@" ./...
cd "$root"

if [ -z "$quick" ]; then
	if docker info >/dev/null 2>&1; then
		scripts/build-image.sh mockd:test
		export MOCKD_IMAGE=mockd:test
	else
		echo "scripts/test.sh: no Docker engine answers: the container tests will skip" >&2
	fi
fi

# The Python and TypeScript clients against a mockd of this tree (and the
# image, when one was built).
scripts/test-clients.sh

cd "$root/mockdcontainer"
go vet ./...
if [ -n "$quick" ]; then
	echo "scripts/test.sh --quick: no image build, no container tests" >&2
else
	go test $race -count=1 "$@" ./...
fi

cd "$root/bench"
go vet ./...
go test -count=1 "$@" ./...
