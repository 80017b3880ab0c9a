package io.aloft.broker.quota;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How a client-quota entity is stored in the controller's security metadata.
 *
 * <p><b>Key:</b> {@code security/quota/} then, for each entity type in name order,
 * {@code <type>/<name>}, joined by {@code /}: the name URL-encoded (UTF-8), the default written
 * {@value #DEFAULT} (which no encoded name can be, as {@code <} and {@code >} are encoded), e.g.
 * {@code security/quota/client-id/%3Cx%3E/user/<default>}. One key per entity, so concurrent
 * alterations of different entities never overwrite each other.
 *
 * <p><b>Value</b> (big-endian): {@code version:int8 = 1}, {@code count:int32}, then per quota
 * {@code key:modified-UTF-8 (DataOutput.writeUTF)}, {@code value:float64}, keys in name order.
 *
 * <p>Stateless.
 */
public final class QuotaCodec {
    public static final String PREFIX = "security/quota/";
    static final String DEFAULT = "<default>";
    static final byte VERSION = 1;

    private QuotaCodec() {
    }

    public static String key(QuotaEntity entity) {
        StringBuilder b = new StringBuilder(PREFIX);
        boolean first = true;
        for (Map.Entry<String, String> e : entity.names().entrySet()) {
            if (!first) {
                b.append('/');
            }
            first = false;
            b.append(encode(e.getKey())).append('/')
                    .append(e.getValue() == null ? DEFAULT : encode(e.getValue()));
        }
        return b.toString();
    }

    /** @throws IllegalArgumentException if {@code key} is not one {@link #key} makes */
    public static QuotaEntity entity(String key) {
        if (!key.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a quota key: " + key);
        }
        String[] parts = key.substring(PREFIX.length()).split("/", -1);
        if (parts.length == 0 || parts.length % 2 != 0) {
            throw new IllegalArgumentException("not a quota key: " + key);
        }
        TreeMap<String, String> names = new TreeMap<>();
        for (int i = 0; i < parts.length; i += 2) {
            String type = decode(parts[i]);
            String name = parts[i + 1].equals(DEFAULT) ? null : decode(parts[i + 1]);
            if (names.containsKey(type)) {
                throw new IllegalArgumentException("type " + type + " twice in quota key " + key);
            }
            names.put(type, name);
        }
        return new QuotaEntity(names);
    }

    public static byte[] encodeValues(SortedMap<String, Double> values) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeInt(values.size());
            for (Map.Entry<String, Double> e : values.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeDouble(e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IllegalArgumentException for an unknown version or a truncated value */
    public static SortedMap<String, Double> decodeValues(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown quota value version " + version);
            }
            int n = in.readInt();
            TreeMap<String, Double> out = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                out.put(in.readUTF(), in.readDouble());
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated quota value", e);
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
