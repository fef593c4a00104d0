#!/bin/sh
# Run the Python and TypeScript clients' tests (clients/python with
# Debian's python3 and python3-pytest, clients/js with tsc and node --test)
# against a mockd built from this tree, then check that no test left a
# mockd process or a client's container behind. A client whose tools are
# missing is skipped with a message, unless MOCKD_REQUIRE_CLIENTS=1 (CI)
# makes that a failure. With MOCKD_IMAGE set (an image of this tree), the
# tests that start the container run too. About 20 s.
#
#	scripts/test-clients.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

missing() {
	echo "scripts/test-clients.sh: $1" >&2
	if [ "${MOCKD_REQUIRE_CLIENTS:-}" = 1 ]; then exit 1; fi
}

cd "$root"
go build -o "$tmp/mockd" ./cmd/mockd
export MOCKD_BIN="$tmp/mockd"
unset MOCKD_URL MOCKD_CONTROL_TOKEN

# Debian's python3 (CI's), not another one first on PATH.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3 || true)
if [ -n "$python" ] && "$python" -m pytest --version >/dev/null 2>&1; then
	(cd clients/python && PYTHONPATH="$root/clients/python/src" "$python" -m pytest -p mockplatform.pytest_plugin -q -p no:cacheprovider)
else
	missing "no python3 with pytest (apt-get install python3-pytest): the Python client's tests did not run"
fi

if command -v node >/dev/null 2>&1 && command -v tsc >/dev/null 2>&1; then
	(cd clients/js && node --test test/*.test.mjs)
else
	missing "no node or tsc (apt-get install nodejs node-typescript): the TypeScript client's tests did not run"
fi

# Nothing left behind: no process of this mockd binary, no container of a
# client.
left=$(pgrep -f "$tmp/mockd" || true)
if [ -n "$left" ]; then
	echo "scripts/test-clients.sh: mockd processes left behind by the client tests: $left" >&2
	exit 1
fi
if docker info >/dev/null 2>&1; then
	left=$(docker ps -aq --filter label=org.agentplatform.mockplatform.client)
	if [ -n "$left" ]; then
		echo "scripts/test-clients.sh: containers left behind by the client tests: $left" >&2
		exit 1
	fi
fi
echo "scripts/test-clients.sh: the clients' tests passed; no mockd process or container left behind"
