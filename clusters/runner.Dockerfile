# The kepspec runner image: the kepspec binary with kubectl, kind and the
# docker CLI, for CI systems that run jobs in containers. It is not the
# controller image (clusters/Dockerfile builds the controller alone).
#
# Build, from the repository root:
#
#   docker build -f clusters/runner.Dockerfile -t kepspec-runner .
#
# Run against an existing cluster, its kubeconfig mounted (the host network
# lets a kubeconfig that names 127.0.0.1 reach the API server):
#
#   docker run --rm -v $HOME/.kube:/root/.kube:ro --network host kepspec-runner \
#     run --cluster kubeconfig=/root/.kube/config --target upstream
#
# With --cluster kind, kind creates the cluster through the host's Docker
# Engine: mount its socket and use the host network (the kubeconfig kind
# writes names 127.0.0.1). The bundled target also needs a kepspec checkout
# as the working folder, since its controller image is built from the
# checkout's clusters/Dockerfile:
#
#   docker run --rm -v /var/run/docker.sock:/var/run/docker.sock --network host \
#     -v "$PWD":/work kepspec-runner run --cluster kind --target bundled --report out/
#
# Mounting the socket gives the container the host's Docker Engine, which
# amounts to root on the host. Files the run writes under /work belong to root.
#
# kubectl and kind are their projects' release binaries, each checked against
# the SHA-256 digest published beside it; the docker CLI comes from Docker's
# signed Debian repository.

# kubectl within one minor release of every row of ci/github-actions.yml
# (v1.35 to v1.37), as kubectl's version skew policy asks.
ARG KUBECTL_VERSION=v1.36.4
# The kind release whose node images ci/github-actions.yml pins.
ARG KIND_VERSION=v0.33.0
# The docker CLI's major release (Docker's Debian packages 5:<major>.*).
ARG DOCKER_MAJOR=29

FROM rust:1.89-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin kepspec

FROM debian:bookworm-slim AS downloads
ARG KUBECTL_VERSION
ARG KIND_VERSION
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /downloads
RUN set -eux; \
    arch="$(dpkg --print-architecture)"; \
    url="https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/linux/${arch}/kubectl"; \
    curl -fsSLo kubectl "${url}"; \
    curl -fsSLo kubectl.sha256 "${url}.sha256"; \
    echo "$(cat kubectl.sha256)  kubectl" | sha256sum --check --strict; \
    url="https://kind.sigs.k8s.io/dl/${KIND_VERSION}/kind-linux-${arch}"; \
    curl -fsSLo "kind-linux-${arch}" "${url}"; \
    curl -fsSLo "kind-linux-${arch}.sha256sum" "${url}.sha256sum"; \
    sha256sum --check --strict "kind-linux-${arch}.sha256sum"; \
    mv "kind-linux-${arch}" kind; \
    chmod 0755 kubectl kind; \
    curl -fsSLo docker.asc https://download.docker.com/linux/debian/gpg

FROM debian:bookworm-slim
ARG DOCKER_MAJOR
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=downloads /downloads/docker.asc /etc/apt/keyrings/docker.asc
RUN set -eux; \
    echo "deb [arch=$(dpkg --print-architecture) signed-by=/etc/apt/keyrings/docker.asc] https://download.docker.com/linux/debian bookworm stable" \
      > /etc/apt/sources.list.d/docker.list; \
    apt-get update; \
    apt-get install -y --no-install-recommends "docker-ce-cli=5:${DOCKER_MAJOR}.*" docker-buildx-plugin; \
    rm -rf /var/lib/apt/lists/*
COPY --from=downloads /downloads/kubectl /downloads/kind /usr/local/bin/
COPY --from=build /src/target/release/kepspec /usr/local/bin/kepspec
WORKDIR /work
ENTRYPOINT ["kepspec"]
