#!/usr/bin/env bash
# Builds (once) Helm 3, which the chart tests (helm/ module) run as `helm lint --strict` and
# `helm template` on helm/aloft, and prints its absolute path on the last stdout line. Built from the
# Go module proxy at the pinned version below, cached as $HOME/.cache/aloft/bin/helm-<version>; a
# present binary is reused without touching the network. Everything else goes to stderr.
# Build conventions as scripts/promtool.sh: Go's caches under $HOME/.cache/aloft
# (scripts/lib/go-env.sh), nice 19 with 2 compile jobs so the shared machine stays usable.
set -euo pipefail
cd "$(dirname "$0")/.."
version="v3.22.0"  # helm.sh/helm/v3; keep in step with HelmTool.java
cache="${ALOFT_CACHE_DIR:-$HOME/.cache/aloft}"
bin_dir="$cache/bin"
target="$bin_dir/helm-$version"
if [[ -x "$target" ]]; then
  echo "$target"
  exit 0
fi

mkdir -p "$bin_dir"
source scripts/lib/go-env.sh
go_env helm.sh "$cache" "install Go to build helm for the chart tests"
export GOMAXPROCS="${GOMAXPROCS:-2}"
# Install into a temp dir and rename, so a killed build never leaves a binary the next run would trust.
tmp="$(mktemp -d "$bin_dir/.helm-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "helm.sh: building helm $version with $(go version)" >&2
start=$(date +%s)
if ! GOBIN="$tmp" nice -n 19 go install -p 2 "helm.sh/helm/v3/cmd/helm@$version" >&2; then
  echo "helm.sh: 'go install' of helm $version failed (see above)" >&2
  exit 1
fi
mv -f "$tmp/helm" "$target"
echo "helm.sh: built $target in $(( $(date +%s) - start ))s" >&2
echo "$target"
