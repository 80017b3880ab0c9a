package io.aloft.autoscaler.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PrometheusText on a real broker's /metrics (captured from a broker of SnapshotCollectorTest's
 * cluster after a producer wrote 600 KB to "heavy" and 30 KB to "light") and on the format's edge cases.
 */
class PrometheusTextTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = PrometheusTextTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void parse_realBrokerOutput_everySampleLineRead() throws IOException {
        String text = resource("/collect/broker-metrics-0.0.4.txt");
        PrometheusText p = PrometheusText.parse(text);
        long sampleLines = text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
        assertEquals(0, p.skippedLines(), p.firstProblem());
        assertEquals(sampleLines, p.samples().size());
        assertEquals(607800.0, p.sum("kafka_server_brokertopicmetrics_bytesin_total", Map.of("topic", "heavy")));
        assertEquals(638192.0, p.sum("kafka_server_brokertopicmetrics_bytesin_total", Map.of("topic", "")));
        assertEquals(6.7100672E7, p.sum("aloft_wal_capacity_bytes", Map.of()));
        assertTrue(Double.isNaN(p.sum("aloft_object_storage_stored_bytes", Map.of("store", "data"))));
        // A histogram's +Inf bucket is its count.
        assertEquals(p.sum("aloft_wal_append_latency_seconds_count", Map.of()),
                p.sum("aloft_wal_append_latency_seconds_bucket", Map.of("le", "+Inf")));
        assertTrue(p.sum("kafka_network_requestmetrics_totaltime_seconds_bucket",
                Map.of("request", "Produce", "le", "+Inf")) > 0);
        // Absent series: NaN, not 0.
        assertTrue(Double.isNaN(p.sum("no_such_metric", Map.of())));
    }

    @Test
    void parse_escapedLabelValues_unescaped() {
        PrometheusText p = PrometheusText.parse("m{a=\"x\\\"y\",b=\"back\\\\slash\",c=\"new\\nline\",d=\"{},= \"} 1\n");
        assertEquals(0, p.skippedLines(), p.firstProblem());
        PrometheusText.Sample s = p.samples().get(0);
        assertEquals("x\"y", s.label("a"));
        assertEquals("back\\slash", s.label("b"));
        assertEquals("new\nline", s.label("c"));
        assertEquals("{},= ", s.label("d"));
        assertNull(s.label("e"));
    }

    @Test
    void parse_specialValuesTimestampsAndSpacing() {
        PrometheusText p = PrometheusText.parse(String.join("\r\n",
                "# HELP a_total help with \"quotes\"",
                "# TYPE a_total counter",
                "# any other comment",
                "",
                "nan_value NaN",
                "pos_inf +Inf",
                "neg_inf -Inf 1700000000000",
                "exp{le=\"1e-3\",} 1.5e+3",
                "empty{} -2",
                "spaced { a = \"1\" , b=\"2\" }\t7",
                "ns:colon_name 0.25"));
        assertEquals(0, p.skippedLines(), p.firstProblem());
        assertEquals(List.of("nan_value", "pos_inf", "neg_inf", "exp", "empty", "spaced", "ns:colon_name"),
                p.samples().stream().map(PrometheusText.Sample::name).toList());
        assertTrue(Double.isNaN(p.samples().get(0).value()));
        assertEquals(Double.POSITIVE_INFINITY, p.samples().get(1).value());
        assertEquals(Double.NEGATIVE_INFINITY, p.samples().get(2).value());
        assertEquals(1500.0, p.samples().get(3).value());
        assertEquals("1e-3", p.samples().get(3).label("le"));
        assertEquals(Map.of(), p.samples().get(4).labels());
        assertEquals(Map.of("a", "1", "b", "2"), p.samples().get(5).labels());
        assertEquals(0.25, p.sum("ns:colon_name", Map.of()));
    }

    @Test
    void parse_badLines_skippedAndCountedOthersKept() {
        List<String> bad = List.of(
                "unterminated{a=\"x} 1",
                "unquoted{a=x} 1",
                "novalue",
                "novalue{a=\"b\"}",
                "3starts_with_digit 1",
                "hex 0x1p3",
                "javasuffix 1f",
                "word one",
                "badts 1 12.5",
                "trailing 1 2 3",
                "twice{a=\"1\",a=\"2\"} 1",
                "nocomma{a=\"1\" b=\"2\"} 1",
                "dangling{a=\"1\\",
                "{a=\"1\"} 1");
        StringBuilder text = new StringBuilder("good_first 1\n");
        bad.forEach(l -> text.append(l).append('\n'));
        text.append("good_last{x=\"y\"} 2\n");
        PrometheusText p = PrometheusText.parse(text.toString());
        assertEquals(bad.size(), p.skippedLines());
        assertTrue(p.firstProblem().startsWith("line 2 "), p.firstProblem());
        assertEquals(List.of("good_first", "good_last"), p.samples().stream().map(PrometheusText.Sample::name).toList());
    }

    @Test
    void sum_aggregatesOverLabelsNotAskedFor() {
        PrometheusText p = PrometheusText.parse("""
                t_bucket{request="Produce",listener="A",le="1"} 2
                t_bucket{request="Produce",listener="B",le="1"} 3
                t_bucket{request="Fetch",listener="A",le="1"} 100
                """);
        assertEquals(5.0, p.sum("t_bucket", Map.of("request", "Produce", "le", "1")));
        assertEquals(105.0, p.sum("t_bucket", Map.of()));
    }
}
