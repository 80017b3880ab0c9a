#!/usr/bin/env bash
# Runs one controller voter on its own (a dedicated controller node, or one of a 3-voter quorum
# tried by hand), or the operator's feature-level command. Builds core first unless --no-build.
#
#   scripts/controller.sh controller.properties [--no-build]
#       starts io.aloft.controller.server.ControllerMain with the properties file (keys: README,
#       "core/" configuration); stops on Ctrl-C / SIGTERM
#   scripts/controller.sh features describe --quorum 1@host:9093,... [--timeout-ms MS] [--no-build]
#   scripts/controller.sh features upgrade --level N --quorum 1@host:9093,... [--timeout-ms MS] [--no-build]
#       shows or raises the cluster's feature level (README, "Upgrading"); exit 0 done, 1 refused or
#       no answer, 2 bad arguments
#
# Extra JVM flags via CONTROLLER_JAVA_OPTS (default -Xmx512m; the features command -Xmx256m).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build=1
args=()
for a in "$@"; do
  if [ "$a" = "--no-build" ]; then build=0; else args+=("$a"); fi
done
if [ "$build" = 1 ]; then
  mvn -B -q -pl core -am package -DskipTests >&2
fi
cp="core/target/aloft-core.jar:core/target/lib/*"
if [ "${args[0]}" = "features" ]; then
  # shellcheck disable=SC2086
  exec java ${CONTROLLER_JAVA_OPTS:--Xmx256m} -Dlog4j2.configurationFile="$PWD/config/tool-log4j2.xml" \
    -cp "$cp" io.aloft.controller.tool.FeaturesTool "${args[@]:1}"
fi
# shellcheck disable=SC2086
exec java ${CONTROLLER_JAVA_OPTS:--Xmx512m} -Dlog4j2.shutdownHookEnabled=false -Dlog4j2.configurationFile="$PWD/config/log4j2.xml" \
  -cp "$cp" io.aloft.controller.server.ControllerMain "${args[0]}"
