# mockd, the agent platform mock, as a container image.
#
# Build it with scripts/build-image.sh (binary and image together): the image
# is FROM scratch and takes a static mockd from the build context (.image/),
# so the build pulls nothing (a build from source inside Docker would need a
# Go image to be pulled). A plain `docker build .` without .image/ (a fresh
# clone) stops at its first step, naming the script. The build context
# layout, made by the script and by mockdcontainer.BuildImage alike:
#
#	.image/mockd                 static binary (CGO_ENABLED=0 GOOS=linux)
#	.image/data/                 an empty directory, the data volume's mount point
#	.image/ca-certificates.crt   the build host's CA bundle (webhook deliveries
#	                             to https endpoints verify against it)
#	.image/made-by-scripts-build-image.sh
#	                             an empty marker: its absence is the message
#
# Run: docker run --rm -p 8080:8080 mockd:dev
# Scenarios: mount a directory at /scenarios and name the file with
# MOCKD_SCENARIO=/scenarios/<file>.yaml (or --scenario, repeatable).
# Persistence: MOCKD_DATA=/data/mockd.db keeps the data on the /data volume.
# Published on another port (-p 18080:8080), MOCKD_PUBLIC_URL=http://localhost:18080
# makes the start banner print the address clients use.

# The prebuilt context. Without it this step fails at once with "stat
# .image/made-by-scripts-build-image.sh: file does not exist": run
# scripts/build-image.sh, which compiles mockd into .image/ and builds this
# file.
FROM scratch AS context
COPY .image/made-by-scripts-build-image.sh .image/mockd .image/ca-certificates.crt /image/
COPY .image/data /image/data

FROM scratch

ARG VERSION=dev
ARG REVISION=unknown
ARG CREATED=unknown

LABEL org.opencontainers.image.title="mockd" \
      org.opencontainers.image.description="High-fidelity mock of the agent platform API (runtime, builder, messaging) with a control plane under /_mock" \
      org.opencontainers.image.source="https://github.com/agentplatform/mockplatform" \
      org.opencontainers.image.documentation="https://github.com/agentplatform/mockplatform#run-in-a-container" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"

COPY --from=context /image/mockd /mockd
COPY --from=context /image/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# scratch has no mkdir: the mount point comes from the build context, owned by
# the (numeric, non-root) user so that a fresh volume is writable by it.
COPY --from=context --chown=65532:65532 /image/data /data

ENV MOCKD_ADDR=0.0.0.0:8080
USER 65532:65532
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/mockd", "healthcheck"]
ENTRYPOINT ["/mockd"]
