#!/usr/bin/env bash
# Builds the four service images, the console's and the prover's and smoke-tests them in a real container engine (see README, "Deploying").
#   scripts/images.sh [tag]     default tag: the root package.json's version
# Needs a running Docker engine with node:24-bookworm-slim, the machine's PostgreSQL (127.0.0.1:5432) and Redis
# (127.0.0.1:6379) or DATABASE_URL / REDIS_URL, and `npm ci` done (anvil, s3rver and the ENS artifacts come from
# the dev dependencies). Builds and runs use the host network, so the containers reach those on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-$(node -p "require('./package.json').version")}
images=(metadata-svc mint-svc offchain-svc resolver-svc console prover)

docker info >/dev/null 2>&1 || { echo "no Docker engine answers: start one first" >&2; exit 1; }
docker image inspect node:24-bookworm-slim >/dev/null 2>&1 || { echo "node:24-bookworm-slim is missing: pull it first" >&2; exit 1; }

build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
for service in "${images[@]}"; do
  echo "building nrp/$service:$tag"
  # The legacy builder (Debian's engine has no buildx); every target shares the workspace stage's cache.
  if ! DOCKER_BUILDKIT=0 docker build --network host -f docker/Dockerfile --target "$service" -t "nrp/$service:$tag" . >"$build_log" 2>&1; then
    cat "$build_log" >&2
    exit 1
  fi
done

node -r esbuild-register scripts/images-smoke.ts "$tag"
