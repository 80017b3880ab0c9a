package io.aloft.broker.security.sasl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FailedAuthenticationsTest {
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\";";
    private final AtomicLong now = new AtomicLong(1_000);
    private final FailedAuthentications failures = new FailedAuthentications(now::get);

    private SaslSession session(Map<String, String> props) {
        Map<String, String> all = new java.util.HashMap<>(props);
        all.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS);
        return new SaslSession(SaslConfig.forListener(all, "SASL_PLAINTEXT"), now::get, failures);
    }

    @Test
    void failureDelayMs_doublesPerRecentFailureOfOneAddress_upToTheMax() throws Exception {
        InetAddress guesser = InetAddress.getByName("10.0.0.1");
        InetAddress other = InetAddress.getByName("10.0.0.2");
        SaslSession s = session(Map.of());
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            delays.add(s.failureDelayMs(guesser));
            now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        }
        assertEquals(List.of(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L, 5000L), delays);
        assertEquals(100, s.failureDelayMs(other), "another address starts from the base");
        now.addAndGet(FailedAuthentications.WINDOW_NANOS);
        assertEquals(100, s.failureDelayMs(guesser), "a quiet minute starts again from the base");
    }

    @Test
    void failureDelayMs_maxAtOrBelowBase_isKafkasFixedDelay() throws Exception {
        InetAddress guesser = InetAddress.getByName("10.0.0.3");
        SaslSession s = session(Map.of("aloft.connection.failed.authentication.max.delay.ms", "0"));
        for (int i = 0; i < 5; i++) {
            assertEquals(100, s.failureDelayMs(guesser));
        }
        SaslSession none = session(Map.of("connection.failed.authentication.delay.ms", "0"));
        assertEquals(0, none.failureDelayMs(guesser));
    }

    @Test
    void record_fullTable_forgetsIdleAddressesFirst() throws Exception {
        for (int i = 0; i < FailedAuthentications.MAX_ADDRESSES; i++) {
            failures.record(InetAddress.getByAddress(new byte[] {10, 1, (byte) (i >> 8), (byte) i}));
        }
        InetAddress late = InetAddress.getByName("10.2.0.1");
        failures.record(late);
        assertEquals(1, failures.record(late), "untracked while every entry is recent");
        now.addAndGet(FailedAuthentications.WINDOW_NANOS);
        failures.record(late);
        assertEquals(2, failures.record(late), "tracked once idle entries are forgotten");
    }
}
