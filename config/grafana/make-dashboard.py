#!/usr/bin/env python3
"""Writes aloft-dashboard.json (Grafana, Prometheus data source) beside this script.

The dashboard is generated so panels stay uniform; edit the PANELS table below, run
`python3 config/grafana/make-dashboard.py`, and commit both files. GrafanaDashboardTest checks
that every meter the JSON queries is one a broker exposes.
"""
import json
import os

SEL = '{instance=~"$instance"}'


def sel(extra=""):
    return '{instance=~"$instance"%s}' % ("," + extra if extra else "")


# (row title, [(panel title, unit, [(expr, legend)], kind)]); kind: ts = time series, stat = single value.
PANELS = [
    ("Cluster", [
        ("Active controllers (1 when healthy)", "none",
         [("sum(kafka_controller_kafkacontroller_activecontrollercount)", "active controllers")], "stat"),
        ("Active brokers", "none", [("max(kafka_controller_kafkacontroller_activebrokercount)", "brokers")], "stat"),
        ("Offline partitions", "none",
         [("max(kafka_controller_kafkacontroller_offlinepartitionscount)", "offline")], "stat"),
        ("Partitions led, per broker", "none",
         [("kafka_server_replicamanager_leadercount" + SEL, "{{instance}}")], "ts"),
    ]),
    ("Throughput", [
        ("Bytes in / out, per broker", "Bps",
         [('sum by (instance) (rate(kafka_server_brokertopicmetrics_bytesin_total%s[1m]))' % sel('topic=""'),
           "in {{instance}}"),
          ('sum by (instance) (rate(kafka_server_brokertopicmetrics_bytesout_total%s[1m]))' % sel('topic=""'),
           "out {{instance}}")], "ts"),
        ("Messages in, per broker", "short",
         [('sum by (instance) (rate(kafka_server_brokertopicmetrics_messagesin_total%s[1m]))' % sel('topic=""'),
           "{{instance}}")], "ts"),
        ("Bytes in, top 10 topics", "Bps",
         [('topk(10, sum by (topic) (rate(kafka_server_brokertopicmetrics_bytesin_total%s[1m])))'
           % sel('topic!=""'), "{{topic}}")], "ts"),
        ("Bytes out, top 10 topics", "Bps",
         [('topk(10, sum by (topic) (rate(kafka_server_brokertopicmetrics_bytesout_total%s[1m])))'
           % sel('topic!=""'), "{{topic}}")], "ts"),
    ]),
    ("Requests", [
        ("Requests per second, by API", "reqps",
         [("sum by (request) (rate(kafka_network_requestmetrics_requests_total%s[1m]))" % SEL, "{{request}}")],
         "ts"),
        ("Total time p99, by API", "s",
         [("histogram_quantile(0.99, sum by (le, request) "
           "(rate(kafka_network_requestmetrics_totaltime_seconds_bucket%s[5m])))" % SEL, "{{request}}")], "ts"),
        ("Produce time p99: queue / local / send", "s",
         [("histogram_quantile(0.99, sum by (le) (rate(kafka_network_requestmetrics_%s_seconds_bucket%s[5m])))"
           % (part, sel('request="Produce"')), part) for part in ("requestqueuetime", "localtime",
                                                               "responsesendtime")], "ts"),
        ("Errors per second, by code", "reqps",
         [('sum by (error) (rate(kafka_network_requestmetrics_errors_total%s[1m]))' % sel('error!="NONE"'),
           "{{error}}")], "ts"),
        ("Connections, by listener", "short",
         [("sum by (listener) (kafka_server_socketservermetrics_connections%s)" % SEL, "{{listener}}")], "ts"),
    ]),
    ("Write-ahead log", [
        ("WAL append p99 (append to durable)", "s",
         [("histogram_quantile(0.99, sum by (le, instance) (rate(aloft_wal_append_latency_seconds_bucket%s[5m])))"
           % SEL, "{{instance}}")], "ts"),
        ("WAL fill", "percentunit",
         [("aloft_wal_used_bytes%s / aloft_wal_capacity_bytes%s" % (SEL, SEL), "{{instance}}")], "ts"),
        ("WAL full: appends waiting per second (back-pressure)", "short",
         [("rate(aloft_wal_full_waits_total%s[5m])" % SEL, "{{instance}}")], "ts"),
    ]),
    ("Stream store and object storage", [
        ("Log cache: held / not yet uploaded", "bytes",
         [("aloft_stream_log_cache_bytes%s" % SEL, "held {{instance}}"),
          ("aloft_stream_log_cache_unuploaded_bytes%s" % SEL, "not uploaded {{instance}}")], "ts"),
        ("Upload p99", "s",
         [("histogram_quantile(0.99, sum by (le, instance) (rate(aloft_stream_upload_latency_seconds_bucket%s[5m])))"
           % SEL, "{{instance}}")], "ts"),
        ("Block cache hit ratio", "percentunit",
         [("sum by (instance) (rate(aloft_stream_block_cache_hits_total%s[5m])) / (sum by (instance) "
           "(rate(aloft_stream_block_cache_hits_total%s[5m])) + sum by (instance) "
           "(rate(aloft_stream_block_cache_misses_total%s[5m])))" % (SEL, SEL, SEL), "{{instance}}")], "ts"),
        ("Object storage requests per second, by operation", "reqps",
         [("sum by (operation) (rate(aloft_object_storage_requests_total%s[1m]))" % SEL, "{{operation}}")], "ts"),
        ("Object storage failures and retries per second", "reqps",
         [("sum by (operation) (rate(aloft_object_storage_failures_total%s[5m]))" % SEL, "failed {{operation}}"),
          ("sum by (operation) (rate(aloft_object_storage_retries_total%s[5m]))" % SEL, "retried {{operation}}")],
         "ts"),
        ("Estimated object storage cost, USD per month", "currencyUSD",
         [("sum(rate(aloft_object_storage_cost_usd_total%s[1h])) * 730 * 3600" % SEL, "requests"),
          ("sum(aloft_object_storage_cost_usd_per_month%s)" % SEL, "storage")], "ts"),
    ]),
    ("Consumers", [
        ("Consumer lag, top 10 groups (records)", "short",
         [("topk(10, sum by (group) (aloft_group_lag_records%s))" % SEL, "{{group}}")], "ts"),
    ]),
    ("Controller quorum", [
        ("Raft commit index", "short",
         [("max(kafka_server_raft_metrics_high_watermark%s)" % SEL, "high watermark")], "ts"),
        ("Apply lag per voter (entries)", "short",
         [("kafka_server_raft_metrics_high_watermark%s - on (instance) aloft_controller_applied_index%s"
           % (SEL, SEL), "{{instance}}")], "ts"),
    ]),
    ("JVM", [
        ("Heap used", "bytes",
         [('sum by (instance) (jvm_memory_used_bytes%s)' % sel('area="heap"'), "{{instance}}")], "ts"),
        ("GC pause time per second", "s",
         [("sum by (instance) (rate(jvm_gc_pause_seconds_sum%s[1m]))" % SEL, "{{instance}}")], "ts"),
    ]),
]


def panel(pid, title, unit, targets, kind, x, y, w, h):
    p = {
        "id": pid, "title": title, "type": "stat" if kind == "stat" else "timeseries",
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"x": x, "y": y, "w": w, "h": h},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [{"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend,
                     "datasource": {"type": "prometheus", "uid": "${datasource}"}}
                    for i, (expr, legend) in enumerate(targets)],
    }
    if kind == "stat":
        p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
    return p


def dashboard():
    panels, pid, y = [], 1, 0
    for row, items in PANELS:
        panels.append({"id": pid, "type": "row", "title": row, "collapsed": False,
                       "gridPos": {"x": 0, "y": y, "w": 24, "h": 1}, "panels": []})
        pid, y, x = pid + 1, y + 1, 0
        for title, unit, targets, kind in items:
            w, h = (6, 4) if kind == "stat" else (8, 8)
            if x + w > 24:
                x, y = 0, y + h
            panels.append(panel(pid, title, unit, targets, kind, x, y, w, h))
            pid, x = pid + 1, x + w
        y += 8
    return {
        "uid": "aloft-overview", "title": "Aloft", "tags": ["aloft", "kafka"], "timezone": "browser",
        "schemaVersion": 39, "version": 1, "editable": True, "refresh": "30s",
        "time": {"from": "now-1h", "to": "now"},
        "templating": {"list": [
            {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus"},
            {"name": "instance", "label": "Broker", "type": "query",
             "datasource": {"type": "prometheus", "uid": "${datasource}"},
             "query": {"query": "label_values(kafka_server_replicamanager_partitioncount, instance)",
                       "refId": "instances"},
             "definition": "label_values(kafka_server_replicamanager_partitioncount, instance)",
             "multi": True, "includeAll": True, "allValue": ".*", "refresh": 2,
             "current": {"text": "All", "value": "$__all"}},
        ]},
        "panels": panels,
    }


if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aloft-dashboard.json")
    with open(out, "w") as f:
        json.dump(dashboard(), f, indent=2)
        f.write("\n")
    print(out)
