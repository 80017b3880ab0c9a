package io.aloft.controller.model;

import java.nio.charset.StandardCharsets;

/**
 * Keys of the controller's key-value space that carry a broker's WAL through a failover (see the
 * broker's {@code WalFailover}), each followed by the broker id:
 * <ul>
 *   <li>{@value #LOCATION_PREFIX}: where the broker's WAL lives, published by each run before it
 *       registers: {@code block:<absolute path>} or {@code object:<wal.url>};
 *   <li>{@value #TAKEOVER_PREFIX}: the broker epoch of a fenced incarnation whose WAL another broker
 *       is taking over. From then on the controller refuses that incarnation's heartbeats and
 *       registrations (it must not be unfenced and acknowledge again into a WAL now read by
 *       another broker): a new run registers as a new incarnation;
 *   <li>{@value #RECOVERED_PREFIX}: the broker epoch of the newest incarnation whose WAL was
 *       recovered: its partitions' new owners stop waiting;
 *   <li>{@value #REMOVING_PREFIX}: the broker epoch of an incarnation an operator asked to remove
 *       (UnregisterBroker): the controller refuses its heartbeats and registrations whatever its
 *       state, so its session lapses and it is fenced like a dead broker (its lease lapsing with
 *       it), and its WAL is recovered before it is unregistered.
 * </ul>
 * Epochs are decimal text. Stateless.
 */
public final class WalMarkers {
    public static final String LOCATION_PREFIX = "wal.location/";
    public static final String TAKEOVER_PREFIX = "wal.takeover/";
    public static final String RECOVERED_PREFIX = "wal.recovered/";
    public static final String REMOVING_PREFIX = "wal.removing/";
    public static final String BLOCK = "block:";
    public static final String OBJECT = "object:";

    private WalMarkers() {
    }

    public static String key(String prefix, int brokerId) {
        return prefix + brokerId;
    }

    public static byte[] epochValue(long brokerEpoch) {
        return Long.toString(brokerEpoch).getBytes(StandardCharsets.UTF_8);
    }

    /** The epoch a marker value holds, or -1 for none or a malformed one. */
    public static long epoch(byte[] value) {
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(new String(value, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The broker id a key under {@code prefix} names, or -1. */
    public static int brokerId(String prefix, String key) {
        if (!key.startsWith(prefix)) {
            return -1;
        }
        try {
            return Integer.parseInt(key.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
