package io.aloft.controller.codec;

import static io.aloft.controller.codec.CodecSamples.ENDPOINT;
import static io.aloft.controller.codec.CodecSamples.RANGE;
import static io.aloft.controller.codec.CodecSamples.registry;
import static io.aloft.controller.codec.CodecSamples.samples;
import static io.aloft.controller.codec.CodecSamples.typeId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.ObjectsDeleted;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RecordCodecTest {

    // The wire tags, pinned here on purpose: logs and snapshots already written depend on them.
    private static final int NULL = 0;
    private static final int LONG = 1;
    private static final int INT = 2;
    private static final int STRING = 4;
    private static final int LIST = 6;
    private static final int ENUM = 9;
    private static final int RECORD = 10;

    private static final RecordCodec CODEC = Codecs.CODEC;

    public record Unregistered(int x) {
    }

    @Test
    void samplesCoverEveryRegisteredType() throws Exception {
        Set<Class<?>> sampled = new LinkedHashSet<>();
        samples().forEach(s -> sampled.add(s instanceof Enum<?> e ? e.getDeclaringClass() : s.getClass()));
        List<Class<?>> missing = new ArrayList<>(registry());
        missing.removeAll(sampled);
        assertEquals(List.of(), missing, "registered types without a round-trip sample");
    }

    @Test
    void everySampleRoundTrips() {
        for (Object sample : samples()) {
            byte[] bytes = CODEC.encode(sample);
            Object decoded = CODEC.decode(bytes);
            assertSame(sample.getClass(), decoded.getClass(), "type of " + sample);
            assertDeepEquals(sample, decoded, sample.getClass().getSimpleName());
        }
    }

    @Test
    void plainValuesRoundTrip() {
        List<Object> values = Arrays.asList(null, 0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0, Integer.MIN_VALUE,
                Integer.MAX_VALUE, true, false, "", "tab\t and 😀", new UUID(0, 0), UUID.randomUUID());
        for (Object v : values) {
            assertEquals(v, CODEC.decode(CODEC.encode(v)), String.valueOf(v));
        }
        // Long and Integer keep their identity: a List<Long> must not come back holding Integers.
        assertEquals(Long.class, CODEC.decode(CODEC.encode(1L)).getClass());
        assertEquals(Integer.class, CODEC.decode(CODEC.encode(1)).getClass());
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put(null, List.of());
        map.put("x", Arrays.asList(null, 1L, "y"));
        assertEquals(map, CODEC.decode(CODEC.encode(map)));
        assertTrue(Arrays.equals(new byte[] {-128, 0, 127}, (byte[]) CODEC.decode(CODEC.encode(new byte[] {-128, 0,
                127}))));
    }

    @Test
    void decodeWithTypeChecksTheType() {
        byte[] bytes = CODEC.encode(RANGE);
        assertEquals(RANGE, CODEC.decode(bytes, StreamRange.class));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(bytes, Request.class));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(CODEC.encode(null), Request.class));
    }

    @Test
    void everyTruncationOfEverySampleIsMalformed() {
        for (Object sample : samples()) {
            byte[] bytes = CODEC.encode(sample);
            for (int len = 0; len < bytes.length; len++) {
                byte[] prefix = Arrays.copyOf(bytes, len);
                assertThrows(MalformedDataException.class, () -> CODEC.decode(prefix),
                        () -> sample + " cut to " + prefix.length + " bytes");
            }
        }
    }

    @Test
    void trailingBytesAreMalformed() {
        byte[] bytes = CODEC.encode(RANGE);
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1); // a NULL value after the range
        assertThrows(MalformedDataException.class, () -> CODEC.decode(longer));
    }

    @Test
    void unknownTagsAreMalformed() {
        for (int tag : new int[] {11, 12, 127, -1, -128}) {
            assertThrows(MalformedDataException.class, () -> CODEC.decode(bytes(tag)), "tag " + tag);
        }
    }

    @Test
    void unknownTypeIdsAreMalformed() throws Exception {
        int size = registry().size();
        for (long id : new long[] {size, size + 1, Integer.MAX_VALUE, Long.MAX_VALUE, -1, Long.MIN_VALUE}) {
            assertThrows(MalformedDataException.class, () -> CODEC.decode(concat(bytes(RECORD), varint(id))));
            assertThrows(MalformedDataException.class, () -> CODEC.decode(concat(bytes(ENUM), varint(id), varint(0))));
        }
    }

    @Test
    void enumAndRecordIdsAreNotInterchangeable() throws Exception {
        // A record's id under the enum tag, an enum's id under the record tag, an ordinal past the end.
        byte[] recordAsEnum = concat(bytes(ENUM), varint(typeId(StreamRange.class)), varint(0));
        byte[] enumAsRecord = bytes(RECORD, typeId(BrokerState.class) * 2);
        byte[] badOrdinal = concat(bytes(ENUM), varint(typeId(BrokerState.class)), varint(3));
        byte[] negativeOrdinal = concat(bytes(ENUM), varint(typeId(BrokerState.class)), varint(-1));
        for (byte[] b : List.of(recordAsEnum, enumAsRecord, badOrdinal, negativeOrdinal)) {
            assertThrows(MalformedDataException.class, () -> CODEC.decode(b), HexFormat.of().formatHex(b));
        }
    }

    @Test
    void lengthsBeyondTheInputAreMalformedWithoutAllocating() {
        // Lengths far past the input: must fail on the check, not allocate gigabytes first.
        for (int tag : new int[] {STRING, 5 /* bytes */, LIST, 7 /* map */}) {
            for (long length : new long[] {2, Integer.MAX_VALUE, 1L << 40, Long.MAX_VALUE, -1}) {
                byte[] b = concat(bytes(tag), varint(length), bytes(0));
                assertThrows(MalformedDataException.class, () -> CODEC.decode(b), "tag " + tag + " length " + length);
            }
        }
    }

    @Test
    void overlongVarintsAndOutOfRangeIntsAreMalformed() {
        byte[] elevenBytes = new byte[12];
        elevenBytes[0] = LONG;
        Arrays.fill(elevenBytes, 1, 12, (byte) 0x80);
        assertThrows(MalformedDataException.class, () -> CODEC.decode(elevenBytes));
        // An INT whose value does not fit in an int.
        assertThrows(MalformedDataException.class, () -> CODEC.decode(concat(bytes(INT), varint(1L << 40))));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(concat(bytes(INT), varint(Long.MIN_VALUE))));
    }

    @Test
    void excessiveNestingIsMalformedNotAStackOverflow() {
        for (int depth : new int[] {40, 100_000}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 0; i < depth; i++) {
                out.writeBytes(bytes(LIST, 2)); // a list of one element...
            }
            out.write(NULL); // ...down to a null
            byte[] b = out.toByteArray();
            assertThrows(MalformedDataException.class, () -> CODEC.decode(b), "depth " + depth);
        }
        // Shallow nesting is fine.
        Object nested = List.of(List.of(List.of(List.of("deep"))));
        assertEquals(nested, CODEC.decode(CODEC.encode(nested)));
    }

    @Test
    void wrongComponentTypesAreMalformed() throws Exception {
        int range = typeId(StreamRange.class);
        // StreamRange(long, long, long, long): a string, a null and a list where longs belong.
        for (byte[] first : List.of(concat(bytes(STRING, 2), "x".getBytes()), bytes(NULL), bytes(LIST, 0))) {
            byte[] b = concat(bytes(RECORD), varint(range), first, longs(1, 2, 3));
            assertThrows(MalformedDataException.class, () -> CODEC.decode(b), HexFormat.of().formatHex(b));
        }
        // A record where a list belongs: RegisterBroker(int, String, List<Endpoint>, String).
        byte[] b = concat(bytes(RECORD), varint(typeId(RegisterBroker.class)), ints(1), concat(bytes(STRING, 2),
                "i".getBytes()), CODEC.encode(RANGE), bytes(NULL));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(b));
        // A null where the constructor demands a value (RegisterBroker's incarnation id).
        byte[] nullIncarnation = concat(bytes(RECORD), varint(typeId(RegisterBroker.class)), ints(1), bytes(NULL),
                bytes(LIST, 0), bytes(NULL));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(nullIncarnation));
    }

    @Test
    void wrongElementTypesInsideListsAndMapsAreMalformed() {
        // Erasure lets List<Long> hold a String; decoding must refuse, or applying the command would throw
        // ClassCastException on every replica.
        byte[] deleted = CODEC.encode(new ObjectsDeleted(List.of(1L)));
        byte[] stringElement = replaceLast(deleted, concat(bytes(LONG), varint(1)), concat(bytes(STRING, 2),
                "x".getBytes()));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(stringElement));
        byte[] intElement = replaceLast(deleted, concat(bytes(LONG), varint(1)), concat(bytes(INT), varint(1)));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(intElement));
        // Map<String, String> with a long value.
        byte[] topic = CODEC.encode(new CreateTopic(new UUID(1, 2), "t", 1, 1, Map.of("k", "v")));
        byte[] longValue = replaceLast(topic, concat(bytes(STRING, 2), "v".getBytes()), concat(bytes(LONG),
                varint(5)));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(longValue));
        // List<Endpoint> holding a StreamRange.
        byte[] broker = CODEC.encode(new RegisterBroker(1, "i", List.of(ENDPOINT), null));
        byte[] wrongRecord = replaceLast(broker, CODEC.encode(ENDPOINT), CODEC.encode(RANGE));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(wrongRecord));
    }

    @Test
    void constructorValidationOnDecodeIsMalformed() throws Exception {
        // StreamRange requires end > start; Endpoint requires a port in [0, 65535].
        byte[] emptyRange = concat(bytes(RECORD), varint(typeId(StreamRange.class)), longs(1, 1, 5, 5));
        MalformedDataException e = assertThrows(MalformedDataException.class, () -> CODEC.decode(emptyRange));
        assertTrue(e.getMessage().contains("StreamRange"), e.getMessage());
        byte[] endpoint = CODEC.encode(new Endpoint("L", "h", 1, "P"));
        byte[] badPort = replaceLast(endpoint, concat(bytes(INT), varint(1)), concat(bytes(INT), varint(70_000)));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(badPort));
    }

    @Test
    void nullsTheStateCannotApplyAreRefusedAtDecode() throws Exception {
        // Each of these decoded once and then threw NullPointerException in apply (or query) on every replica.
        List<byte[]> inputs = List.of(
                concat(bytes(RECORD), varint(typeId(DeleteKv.class)), bytes(NULL)),
                concat(bytes(RECORD), varint(typeId(Queries.GetKv.class)), bytes(NULL)),
                concat(bytes(RECORD), varint(typeId(StreamObjectSpec.class)), longs(1, 2), bytes(NULL)),
                concat(bytes(RECORD), varint(typeId(CommitStreamObjectRequest.class)), bytes(NULL), bytes(LIST, 2),
                        longs(1, 0)));
        for (byte[] b : inputs) {
            assertThrows(MalformedDataException.class, () -> CODEC.decode(b), HexFormat.of().formatHex(b));
        }
    }

    @Test
    void encodingUnregisteredTypesFails() {
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(new Unregistered(1)));
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(Reply.of(new Unregistered(1))));
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(java.time.DayOfWeek.MONDAY));
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(1.5d));
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(List.of(new Object())));
    }

    @Test
    void randomBytesOnlyEverFailAsMalformed() {
        long seed = 0x5eed_a10f_7L;
        Random random = new Random(seed);
        List<byte[]> valid = samples().stream().map(CODEC::encode).toList();
        for (int i = 0; i < 30_000; i++) {
            byte[] input;
            if (i % 2 == 0) {
                // Pure noise, biased towards real tags so decoding gets past the first byte.
                input = new byte[random.nextInt(48)];
                for (int j = 0; j < input.length; j++) {
                    input[j] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : random.nextInt(12));
                }
            } else {
                // A valid encoding with a few bytes changed: reaches deep into records.
                input = valid.get(random.nextInt(valid.size())).clone();
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            }
            try {
                CODEC.decode(input);
            } catch (MalformedDataException expected) {
                // the only allowed failure
            } catch (Throwable t) {
                fail("seed " + seed + " iteration " + i + " input " + HexFormat.of().formatHex(input) + " threw " + t,
                        t);
            }
        }
    }

    // ---- helpers ----

    /** Equality that compares byte arrays by content, also inside records, lists and maps. */
    private static void assertDeepEquals(Object expected, Object actual, String path) {
        if (expected instanceof byte[] e) {
            assertTrue(actual instanceof byte[] a && Arrays.equals(e, a), path);
        } else if (expected instanceof List<?> e) {
            List<?> a = (List<?>) actual;
            assertEquals(e.size(), a.size(), path);
            for (int i = 0; i < e.size(); i++) {
                assertDeepEquals(e.get(i), a.get(i), path + "[" + i + "]");
            }
        } else if (expected instanceof Map<?, ?> e) {
            Map<?, ?> a = (Map<?, ?>) actual;
            assertEquals(e.keySet(), a.keySet(), path);
            e.forEach((k, v) -> assertDeepEquals(v, a.get(k), path + "[" + k + "]"));
        } else if (expected != null && expected.getClass().isRecord()) {
            assertSame(expected.getClass(), actual.getClass(), path);
            for (RecordComponent c : expected.getClass().getRecordComponents()) {
                try {
                    assertDeepEquals(c.getAccessor().invoke(expected), c.getAccessor().invoke(actual),
                            path + "." + c.getName());
                } catch (ReflectiveOperationException ex) {
                    throw new AssertionError(ex);
                }
            }
        } else {
            assertEquals(expected, actual, path);
        }
    }

    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    /** The codec's zig-zag varint, written independently. */
    private static byte[] varint(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long z = (v << 1) ^ (v >> 63);
        while ((z & ~0x7fL) != 0) {
            out.write((int) ((z & 0x7f) | 0x80));
            z >>>= 7;
        }
        out.write((int) z);
        return out.toByteArray();
    }

    private static byte[] longs(long... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long v : values) {
            out.write(LONG);
            out.writeBytes(varint(v));
        }
        return out.toByteArray();
    }

    private static byte[] ints(int... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int v : values) {
            out.write(INT);
            out.writeBytes(varint(v));
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** {@code in} with the last occurrence of {@code find} replaced by {@code with}. */
    private static byte[] replaceLast(byte[] in, byte[] find, byte[] with) {
        for (int i = in.length - find.length; i >= 0; i--) {
            if (Arrays.equals(in, i, i + find.length, find, 0, find.length)) {
                return concat(Arrays.copyOf(in, i), with, Arrays.copyOfRange(in, i + find.length, in.length));
            }
        }
        throw new AssertionError(HexFormat.of().formatHex(find) + " not in " + HexFormat.of().formatHex(in));
    }
}
