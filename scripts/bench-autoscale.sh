#!/usr/bin/env bash
# The autoscaler's step-load scenario as a benchmark (issue 18): a 2-broker local cluster
# (scripts/cluster.sh) under an idempotent acks=all producer offering 4 MB/s, stepped to 20 MB/s;
# the autoscaler (policy: target 5.3 MB/s of ingress per broker, 2..3 brokers, interval 3 s) adds a
# broker, fills it, and after the load drops back drains and removes it. Prints the AUTOSCALE line:
# time from the step to the scale-out decision, to the new broker serving and to the balanced state
# (every broker within +-1 of the even share of the 12 equally loaded partitions), from the drop to
# the removal, and the producer's send p99 before, during and after. About a minute after the build.
# A harness, not a test: mvn verify runs the same scenario at a smaller load (AutoscalerStepLoadTest).
#
#   scripts/bench-autoscale.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
goals=(verify)
if [ "${1:-}" = --no-build ]; then goals=(surefire:test); fi
log="autoscaler/target/bench-autoscale-$(date -u +%Y%m%dT%H%M%SZ).log"
mkdir -p autoscaler/target
mvn -B -pl autoscaler -am "${goals[@]}" -Dtest=AutoscalerStepLoadTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Daloft.autoscale.bench=true >"$log" 2>&1 || { echo "bench-autoscale: failed; see $log" >&2; exit 1; }
grep -h '^AUTOSCALE' autoscaler/target/surefire-reports/*AutoscalerStepLoadTest-output.txt
echo "(git $(git rev-parse --short HEAD), $(nproc) cores; Maven log $log)"
