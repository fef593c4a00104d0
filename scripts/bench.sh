#!/bin/sh
# Run the load benchmark (bench/, a Go module of its own so that users of
# mockplatform never see it). It needs wrk and taskset on PATH. How to run
# it and how to read its table: docs/performance.md.
#
#	scripts/bench.sh                       quick run, about two minutes
#	scripts/bench.sh -mode full            1k, 100k and 1M records, and the targets
#	scripts/bench.sh -format markdown      the table for docs/performance.md
#	scripts/bench.sh -h                    every flag
set -eu
cd "$(dirname "$0")/../bench"
exec go run . "$@"
