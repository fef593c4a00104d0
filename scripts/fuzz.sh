#!/bin/sh
# Run every fuzz target of the main module, one after another, each for a
# budget of FUZZTIME (default 2000x: 2000 inputs, a few seconds each; the
# short run of scripts/test.sh). A count, not a duration: Go 1.26's fuzzing
# coordinator can fail a duration-bound run at its deadline with "context
# deadline exceeded" and no failing input (golang/go#75804), which is not a
# finding. A longer run, e.g. before a release or after a change to a
# decoder (docs/security.md#fuzzing):
#
#	FUZZTIME=200000x scripts/fuzz.sh
#	FUZZTIME=10m scripts/fuzz.sh FuzzParse      (one target, by duration)
#
# A failing input is written under the package's testdata/fuzz/ and then
# runs with every go test; commit it with the fix.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzztime=${FUZZTIME:-2000x}

# Every Fuzz function of the main module's test files (the nested modules
# have none), as "package target" lines.
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v -e '^./mockdcontainer/' -e '^./bench/' -e '^./console/browsertest/' |
	while read -r f; do
		grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s#^func #$(dirname "$f") #"
	done | sort)

echo "$targets" | while read -r pkg target; do
	[ -n "$pkg" ] || continue
	if [ $# -gt 0 ] && [ "$1" != "$target" ]; then
		continue
	fi
	echo "fuzz $pkg $target ($fuzztime)"
	go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime"
done
