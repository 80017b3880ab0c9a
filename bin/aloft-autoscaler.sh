#!/usr/bin/env bash
# Runs the Aloft autoscaler: self-balancing and autoscaling of an Aloft cluster, as its own process.
#
#   bin/aloft-autoscaler.sh run --policy POLICY.yaml --bootstrap HOST:PORT[,...] [--metrics-listener http://127.0.0.1:9465] [--dry-run]
#       evaluates the policy every interval until SIGTERM / Ctrl-C; logs each decision with its reason
#   bin/aloft-autoscaler.sh plan --policy POLICY.yaml --bootstrap HOST:PORT [--drain ID[,ID...]]
#       prints the balancing plan for the cluster now (draining the given brokers) and changes nothing
#   bin/aloft-autoscaler.sh drain --broker ID --policy POLICY.yaml --bootstrap HOST:PORT
#       moves every partition off broker ID in the policy's batches (before maintenance or unregister)
#   bin/aloft-autoscaler.sh remove --broker ID --policy POLICY.yaml --bootstrap HOST:PORT
#       drains broker ID, then stops it through the policy's backend (not a voter; Kubernetes: highest ordinal)
#   bin/aloft-autoscaler.sh validate --policy POLICY.yaml
#       checks a policy file; errors name the field
#   bin/aloft-autoscaler.sh simulate --policy POLICY.yaml [--brokers 3] [--partitions 1000] [--from 100MiB] [--to 1GiB] [--boot 60s] [--move 3s]
#       plays a load step on synthetic metrics with the policy's own decisions and plans (virtual time)
#
# Policy files: autoscaler/POLICY.md, examples in autoscaler/examples/. Builds the autoscaler jar on
# first use (Maven, JDK 17+). JVM options: ALOFT_AUTOSCALER_HEAP_OPTS (default -Xmx256m), ALOFT_JVM_OPTS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jar="$root/autoscaler/target/aloft-autoscaler.jar"
if [ ! -f "$jar" ]; then
  echo "building the autoscaler (first run) ..." >&2
  (cd "$root" && mvn -B -q -pl autoscaler -am package -DskipTests >&2)
fi
# shellcheck disable=SC2086
exec java ${ALOFT_AUTOSCALER_HEAP_OPTS:--Xmx256m} ${ALOFT_JVM_OPTS:-} \
  -Dlog4j2.configurationFile="${ALOFT_LOG4J_CONFIG:-$root/config/log4j2.xml}" \
  -jar "$jar" "$@"
