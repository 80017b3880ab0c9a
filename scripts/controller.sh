#!/usr/bin/env bash
# Runs one controller voter on its own (a dedicated controller node, or one of a 3-voter quorum
# tried by hand): builds core once, then starts io.aloft.controller.server.ControllerMain with the given
# properties file (keys: README, "core/" configuration). Stops on Ctrl-C / SIGTERM.
#
#   scripts/controller.sh controller.properties [--no-build]
#
# Extra JVM flags via CONTROLLER_JAVA_OPTS (default -Xmx512m).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
props=$1
if [ "${2:-}" != "--no-build" ]; then
  mvn -B -q -pl core -am package -DskipTests >&2
fi
# shellcheck disable=SC2086
exec java ${CONTROLLER_JAVA_OPTS:--Xmx512m} -Dlog4j2.shutdownHookEnabled=false -Dlog4j2.configurationFile="$PWD/config/log4j2.xml" \
  -cp "core/target/aloft-core.jar:core/target/lib/*" \
  io.aloft.controller.server.ControllerMain "$props"
