#!/usr/bin/env bash
# The test command: builds everything and runs the default test suite (unit tests, crash tests,
# and integration tests against real servers started on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f scripts/s3-server.sh ]; then
  # Build the S3 server the integration tests start (cached under ~/.cache/aloft after the first run).
  bash scripts/s3-server.sh >/dev/null
fi
# The Kafka clients of the compatibility tests (compat/): Python venvs with confluent-kafka
# (librdkafka) and the Go clients (franz-go, Sarama), cached under ~/.cache/aloft, and Debian's kcat;
# each a no-op once done.
bash scripts/python-clients.sh >/dev/null
bash scripts/go-clients.sh >/dev/null
bash scripts/kcat.sh >/dev/null
# Prometheus' promtool, which checks the brokers' /metrics exposition (core's metrics tests).
bash scripts/promtool.sh >/dev/null
# Helm 3, which lints and renders the chart in helm/aloft (the helm/ module's tests).
bash scripts/helm.sh >/dev/null
# A real kube-apiserver and etcd, built from the Go module proxy (about 10 CPU-minutes the first time,
# then cached): the autoscaler's Kubernetes backend and the Helm chart's manifests are tested against it.
bash scripts/kube-apiserver.sh build >/dev/null
exec mvn -B verify "$@"
