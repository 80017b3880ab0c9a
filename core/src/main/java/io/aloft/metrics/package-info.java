/**
 * What a broker or a dedicated controller voter tells its operators over HTTP: the meter registry
 * every component registers its meters on ({@link io.aloft.metrics.ServerMetrics}, Micrometer with
 * its Prometheus registry), and the endpoint that serves {@code /metrics} (Prometheus text and
 * OpenMetrics, by content negotiation), {@code /healthz} and {@code /readyz}
 * ({@link io.aloft.metrics.MetricsHttpServer}), at the address of {@code metrics.listener}
 * ({@link io.aloft.metrics.MetricsConfig}).
 *
 * <p>Naming: a meter that Kafka has is named after Kafka's MBean the way the Prometheus JMX
 * exporter rules in common use turn it into a Prometheus name ({@code kafka.server:type=
 * BrokerTopicMetrics,name=BytesInPerSec,topic=t} becomes {@code kafka_server_brokertopicmetrics_bytesin_total{topic="t"}}),
 * so dashboards and alerts written for Kafka keep working; Aloft's own start with {@code aloft_}.
 * Times are in seconds, sizes in bytes, as Prometheus recommends. The README lists every name.
 */
package io.aloft.metrics;
