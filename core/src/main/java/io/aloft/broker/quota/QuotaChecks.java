package io.aloft.broker.quota;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * What AlterClientQuotas accepts, with Kafka's messages: entities of a user and/or a client id, or
 * of an IP address alone; each type's quota keys and value types (byte rates are whole numbers,
 * every value is above 0). Stateless.
 */
public final class QuotaChecks {
    /** How a quota key's value must look. */
    private enum ValueType {
        INT("an INT", Integer.MAX_VALUE),
        LONG("a LONG", Long.MAX_VALUE),
        DOUBLE(null, Double.MAX_VALUE);

        final String article;
        final double max;

        ValueType(String article, double max) {
            this.article = article;
            this.max = max;
        }
    }

    /** The keys of user and client-id entities (controller_mutation_rate is stored; nothing here enforces it). */
    private static final Map<String, ValueType> CLIENT_KEYS = Map.of(
            QuotaType.PRODUCE.key, ValueType.LONG,
            QuotaType.FETCH.key, ValueType.LONG,
            QuotaType.REQUEST.key, ValueType.DOUBLE,
            "controller_mutation_rate", ValueType.DOUBLE);
    /** The key of IP entities (stored; not enforced yet). */
    private static final Map<String, ValueType> IP_KEYS = Map.of("connection_creation_rate", ValueType.INT);

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    private QuotaChecks() {
    }

    /**
     * The entity these names (type to name, null: the default) make. A request that names a type
     * twice has already kept the last name, as Kafka reads the request into a map.
     *
     * @throws InvalidRequestException with Kafka's message if it is not one a quota can be set on
     */
    public static QuotaEntity entity(Map<String, String> components) {
        if (components.isEmpty()) {
            throw new InvalidRequestException("Invalid empty client quota entity");
        }
        TreeMap<String, String> names = new TreeMap<>();
        for (Map.Entry<String, String> e : components.entrySet()) {
            Component c = new Component(e.getKey(), e.getValue());
            switch (c.type()) {
                case QuotaEntity.USER, QuotaEntity.CLIENT_ID -> {
                }
                case QuotaEntity.IP -> {
                    if (c.name() != null && !isIpAddress(c.name())) {
                        throw new InvalidRequestException(c.name() + " is not a valid IP or resolvable host.");
                    }
                }
                default -> throw new InvalidRequestException("Unhandled client quota entity type: " + c.type());
            }
            if (c.name() != null && c.name().isEmpty()) {
                throw new InvalidRequestException("Empty " + c.type() + " not supported");
            }
            names.put(c.type(), c.name());
        }
        if (names.containsKey(QuotaEntity.IP) && names.size() > 1) {
            throw new InvalidRequestException("Invalid quota entity combination, IP entity shouldnot be combined "
                    + "with User or ClientId");
        }
        return new QuotaEntity(names);
    }

    private record Component(String type, String name) {
    }

    /**
     * Checks one change of {@code entity}'s quotas.
     *
     * @throws InvalidRequestException with Kafka's message for an unknown key or a value it refuses
     */
    public static void check(QuotaEntity entity, String key, double value, boolean remove) {
        if (remove) {
            return; // removing a key that does not exist removes nothing; Kafka does not check it
        }
        ValueType type = (entity.has(QuotaEntity.IP) ? IP_KEYS : CLIENT_KEYS).get(key);
        if (type == null) {
            throw new InvalidRequestException("Invalid configuration key " + key);
        }
        if (type != ValueType.DOUBLE) {
            if (value > type.max) {
                throw new InvalidRequestException("Proposed value for " + key + " is too large for "
                        + type.article + ".");
            }
            if (value != Math.rint(value)) {
                throw new InvalidRequestException(key + " cannot be a fractional value.");
            }
        }
        if (value <= 0) { // NaN passes, as in Kafka (and then limits nothing)
            throw new InvalidRequestException("Quota " + key + " must be greater than 0");
        }
    }

    /** An IPv4 or IPv6 literal (host names are not resolved on a network thread). */
    static boolean isIpAddress(String s) {
        var m = IPV4.matcher(s);
        if (m.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(m.group(i)) > 255) {
                    return false;
                }
            }
            return true;
        }
        if (!IPV6.matcher(s).matches()) {
            return false;
        }
        try {
            java.net.InetAddress.getByName(s); // a literal: parsed, never looked up
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
