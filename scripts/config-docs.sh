#!/usr/bin/env bash
# Rewrites the README's configuration tables from the keys' declarations (each module's
# XxxConfig.DEFINITION), between the <!-- config:NAME --> markers. Run it after adding or changing
# a key; ConfigReferenceTest fails while the README differs.
#
#   scripts/config-docs.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--no-build" ]; then
  mvn -B -q -pl core -am package -DskipTests >&2
fi
exec java -cp "core/target/aloft-core.jar:core/target/lib/*" io.aloft.broker.ConfigReference README.md
