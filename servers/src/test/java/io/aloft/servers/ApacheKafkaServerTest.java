package io.aloft.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApacheKafkaServerTest {

    @Test
    void start_fromKafkaLibs_roundTripsRecordsAndStopsClean() throws Exception {
        ApacheKafkaServer kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", true,
                RoundTrip.scratch(), Map.of(), Duration.ofSeconds(60));
        String props = RoundTrip.startRoundTripAndStop(kafka);
        assertTrue(props.contains("log.flush.interval.messages=1"), props);
        assertThrows(IllegalStateException.class, kafka::bootstrap);
    }

    @Test
    void restart_keepsDataAndAddress() throws Exception {
        RoundTrip.startWriteRestartAndRead(new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false,
                RoundTrip.scratch(), Map.of(), Duration.ofSeconds(60)));
    }

    @Test
    void restart_notStarted_refused() throws Exception {
        ApacheKafkaServer kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "512m", false,
                RoundTrip.scratch(), Map.of(), Duration.ofSeconds(60));
        assertThrows(IllegalStateException.class, kafka::restart);
    }

    @Test
    void description_namesVersionAndDurability() throws Exception {
        ApacheKafkaServer kafka = new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "3g", false,
                RoundTrip.scratch(), Map.of(), Duration.ofSeconds(60));
        assertEquals("Apache Kafka 4.3.1 (KRaft, 1 node, default: no fsync per write, -Xmx3g -XX:+UseG1GC "
                + "-XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent)",
                kafka.description());
        assertTrue(kafka.serverProperties(1, 2, 1, Path.of("x")).get("log.flush.interval.messages") == null);
    }

    @Test
    void constructor_badHeap_namesTheOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ApacheKafkaServer(ApacheKafkaServer.findLibsDir(), "3 gigs", false, RoundTrip.scratch(),
                        Map.of(), Duration.ofSeconds(1)));
        assertTrue(e.getMessage().startsWith("heap:"), e.getMessage());
    }
}
