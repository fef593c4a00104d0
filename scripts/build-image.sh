#!/bin/sh
# Build the static mockd binary and the mockd container image together.
#
#	scripts/build-image.sh [TAG]      (default TAG: mockd:dev; env IMAGE also works)
#
# The image is FROM scratch (nothing is pulled): the binary is built here with
# CGO_ENABLED=0 into .image/ and the Dockerfile copies it from the build
# context. Needs Go and a Docker engine; run it from anywhere in the repo.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:-${IMAGE:-mockd:dev}}
cd "$root"

revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)

rm -rf .image
mkdir -p .image/data
: > .image/made-by-scripts-build-image.sh # the Dockerfile's first step needs it
# -tags nomsgpack drops gin's MessagePack codec (unused here; 6 MB of binary);
# main.version is what `mockd version` prints.
CGO_ENABLED=0 GOOS=linux GOARCH=${GOARCH:-$(go env GOARCH)} \
	go build -trimpath -tags nomsgpack -ldflags="-s -w -X main.version=$version" -o .image/mockd ./cmd/mockd

# CA certificates for webhook deliveries to https endpoints (scratch has
# none): the build host's bundle, or an empty file when it has none.
: > .image/ca-certificates.crt
for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
	if [ -s "$f" ]; then cp "$f" .image/ca-certificates.crt; break; fi
done

docker build \
	--build-arg VERSION="$version" \
	--build-arg REVISION="$revision" \
	--build-arg CREATED="$created" \
	-t "$tag" .

size=$(docker image inspect --format '{{.Size}}' "$tag")
echo "built $tag ($(( size / 1024 / 1024 )) MiB; binary $(( $(wc -c < .image/mockd) / 1024 / 1024 )) MiB)"
