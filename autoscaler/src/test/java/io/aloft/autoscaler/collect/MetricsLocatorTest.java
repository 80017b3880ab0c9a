package io.aloft.autoscaler.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;

/** The URL rules of MetricsLocator without a cluster (SnapshotCollectorTest reads real brokers' listeners). */
class MetricsLocatorTest {
    private static final Node BROKER = new Node(7, "broker-7.aloft.svc", 9092, "rack-a");

    @Test
    void fromListener_fixedPort_usedAsIs() {
        assertEquals(URI.create("http://10.0.0.5:9464"), MetricsLocator.fromListener(BROKER, "http://10.0.0.5:9464"));
        assertEquals(URI.create("http://[::1]:9464"), MetricsLocator.fromListener(BROKER, " http://[::1]:9464 "));
    }

    @Test
    void fromListener_wildcardHost_brokersOwnHost() {
        assertEquals(URI.create("http://broker-7.aloft.svc:9464"), MetricsLocator.fromListener(BROKER, "http://0.0.0.0:9464"));
        assertEquals(URI.create("http://broker-7.aloft.svc:9464"), MetricsLocator.fromListener(BROKER, "http://[::]:9464"));
    }

    @Test
    void fromListener_unusable_null() {
        for (String bad : List.of("http://127.0.0.1:0", "http://127.0.0.1", "https://h:1", "127.0.0.1:9464", "not a url",
                "http://:9464")) {
            assertNull(MetricsLocator.fromListener(BROKER, bad), bad);
        }
    }

    @Test
    void fromTemplate_fillsHostAndId() throws Exception {
        Map<Integer, URI> urls = MetricsLocator.fromTemplate("http://metrics-{id}.{host}:9464")
                .locate(List.of(BROKER));
        assertEquals(URI.create("http://metrics-7.broker-7.aloft.svc:9464"), urls.get(7));
        // An IPv6 host is bracketed.
        assertEquals(URI.create("http://[::1]:9464"), MetricsLocator.fromTemplate(MetricsLocator.DEFAULT_TEMPLATE)
                .locate(List.of(new Node(8, "::1", 9092))).get(8));
    }

    @Test
    void fromTemplate_notAnHttpUrl_rejectedAtOnce() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MetricsLocator.fromTemplate("{host}:9464"));
        assertTrue(e.getMessage().startsWith("metrics URL template '{host}:9464'"), e.getMessage());
    }
}
