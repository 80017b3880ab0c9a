#!/usr/bin/env bash
# Builds (once per source version) the Go Kafka clients of the compatibility tests, compat/go
# (franz-go with kadm, and Sarama; versions pinned in compat/go/go.mod and go.sum), and prints the
# binary's absolute path on the last stdout line.
#
# The binary is $HOME/.cache/aloft/bin/aloft-compat-go-<hash>, the hash covering go.mod, go.sum and
# the .go files (compat/src/test/java/io/aloft/compat/GoClients.java computes the same one), so a
# present binary is reused without touching the network and a source change builds a new one.
# Modules come from the Go module proxy the first time. Everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
src="compat/go"
cache="${ALOFT_CACHE_DIR:-$HOME/.cache/aloft}"
bin_dir="$cache/bin"

hash="$(cd "$src" && cat go.mod go.sum $(LC_ALL=C ls -- *.go) | sha256sum | cut -c1-16)"
target="$bin_dir/aloft-compat-go-$hash"
if [[ -x "$target" ]]; then
  echo "$target"
  exit 0
fi

mkdir -p "$bin_dir"
source scripts/lib/go-env.sh
go_env go-clients.sh "$cache" "install Go (see compat/go/go.mod for the version) to build the Go clients of the compatibility tests"
export GOFLAGS="$GOFLAGS -mod=readonly"

# Build to a temp name and rename, so a killed build never leaves a binary the next run would trust.
tmp="$(mktemp "$bin_dir/.aloft-compat-go-XXXXXX")"
trap 'rm -f "$tmp"' EXIT
echo "go-clients.sh: building compat/go with $(go version)" >&2
start=$(date +%s)
if ! (cd "$src" && go build -trimpath -o "$tmp" .) >&2; then
  echo "go-clients.sh: 'go build' in $src failed (see above)" >&2
  exit 1
fi
chmod +x "$tmp"
mv -f "$tmp" "$target"
# Binaries of earlier sources are never run again.
find "$bin_dir" -maxdepth 1 -name 'aloft-compat-go-*' ! -name "aloft-compat-go-$hash" -delete
echo "go-clients.sh: built $target in $(( $(date +%s) - start ))s" >&2
echo "$target"
