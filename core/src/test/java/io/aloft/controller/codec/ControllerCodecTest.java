package io.aloft.controller.codec;

import static io.aloft.controller.codec.Bytes.bytes;
import static io.aloft.controller.codec.Bytes.concat;
import static io.aloft.controller.codec.Bytes.frame;
import static io.aloft.controller.codec.Bytes.hex;
import static io.aloft.controller.codec.Bytes.replaceLast;
import static io.aloft.controller.codec.Bytes.string;
import static io.aloft.controller.codec.Bytes.varint;
import static io.aloft.controller.codec.Bytes.varints;
import static io.aloft.controller.codec.CodecSamples.RANGE;
import static io.aloft.controller.codec.CodecSamples.samples;
import static io.aloft.controller.codec.DeepEquals.assertDeepEquals;
import static io.aloft.controller.codec.DeepEquals.conformsDeeply;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.stream.metadata.StreamRange;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The production codec: round trips of every type, and defensive decoding of bad frames. */
class ControllerCodecTest {
    private static final ControllerCodec CODEC = ControllerSchemas.CODEC;
    private static final int LEVEL = FeatureLevel.INITIAL;

    // Type ids and built-in kinds, pinned here on purpose: logs and snapshots depend on them.
    private static final int NULL = 0;
    private static final int INT64 = 1;
    private static final int INT32 = 2;
    private static final int STRING = 4;
    private static final int BYTES = 5;
    private static final int LIST = 7;
    private static final int MAP = 8;
    private static final int REQUEST = 16;
    private static final int STREAM_RANGE = 48;
    private static final int REGISTER_BROKER = 64;
    private static final int DELETE_KV = 75;
    private static final int ENDPOINT = 96;
    private static final int BROKER_STATE = 97;
    private static final int GET_KV = 134;

    public record NoSchema(int x) {
    }

    enum NoSchemaEnum { A }

    /** At the newest level, so every record type (also those a later level introduced) can be written. */
    private static byte[] encode(Object value) {
        return CODEC.encode(value, FeatureLevel.LATEST, FeatureLevel.LATEST);
    }

    private static Object decode(byte[] frame) {
        return CODEC.decode(frame).value();
    }

    @Test
    void samplesCoverEveryRegisteredType() {
        Set<Class<?>> sampled = new LinkedHashSet<>();
        samples().forEach(s -> sampled.add(s instanceof Enum<?> e ? e.getDeclaringClass() : s.getClass()));
        List<String> missing = new ArrayList<>();
        for (Object schema : ControllerSchemas.REGISTRY.schemas().values()) {
            Class<?> type = schema instanceof RecordSchema<?> r ? r.type() : ((EnumSchema<?>) schema).type();
            if (!sampled.contains(type)) {
                missing.add(type.getName());
            }
        }
        assertEquals(List.of(), missing, "registered types without a round-trip sample");
    }

    @Test
    void everySampleRoundTrips_andReencodesToTheSameBytes() {
        for (Object sample : samples()) {
            byte[] bytes = encode(sample);
            Object decoded = decode(bytes);
            assertSame(sample.getClass(), decoded.getClass(), "type of " + sample);
            assertDeepEquals(sample, decoded, sample.getClass().getSimpleName());
            assertTrue(conformsDeeply(decoded), sample.toString());
            assertArrayEquals(bytes, encode(decoded), "one encoding per value: " + sample);
        }
    }

    @Test
    void builtInValuesRoundTrip() {
        List<Object> values = Arrays.asList(null, 0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0, Integer.MIN_VALUE,
                Integer.MAX_VALUE, true, false, "", "tab\t and 😀", new UUID(0, 0), UUID.randomUUID());
        for (Object v : values) {
            assertEquals(v, decode(encode(v)), String.valueOf(v));
        }
        // Long and Integer keep their identity: a List<Long> must not come back holding Integers.
        assertEquals(Long.class, decode(encode(1L)).getClass());
        assertEquals(Integer.class, decode(encode(1)).getClass());
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("x", Arrays.asList(null, 1L, "y"));
        map.put("", List.of());
        assertEquals(new java.util.TreeMap<>(map), decode(encode(map)));
        assertArrayEquals(new byte[] {-128, 0, 127}, (byte[]) decode(encode(new byte[] {-128, 0, 127})));
    }

    @Test
    void mapsHaveOneEncoding_whateverTheIterationOrder() {
        Map<String, Object> ab = new LinkedHashMap<>();
        ab.put("a", 1L);
        ab.put("b", 2L);
        Map<String, Object> ba = new LinkedHashMap<>();
        ba.put("b", 2L);
        ba.put("a", 1L);
        assertArrayEquals(encode(ab), encode(ba));
        // Keys out of order or repeated are malformed: each value has exactly one encoding.
        byte[] unordered = frame(1, varints(MAP, 2), string("b"), varints(INT64, 2), string("a"), varints(INT64, 1));
        byte[] repeated = frame(1, varints(MAP, 2), string("a"), varints(INT64, 2), string("a"), varints(INT64, 1));
        assertThrows(MalformedDataException.class, () -> decode(unordered));
        assertThrows(MalformedDataException.class, () -> decode(repeated));
    }

    @Test
    void decodeWithTypeChecksTheType() {
        byte[] bytes = encode(RANGE);
        assertEquals(RANGE, CODEC.decode(bytes, StreamRange.class));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(bytes, Request.class));
        assertThrows(MalformedDataException.class, () -> CODEC.decode(encode(null), Request.class));
    }

    @Test
    void theHeaderCarriesTheLevels_andABadHeaderIsMalformed() {
        byte[] bytes = CODEC.encode(RANGE, LEVEL, 7);
        assertEquals(new ControllerCodec.Header(LEVEL, 7), CODEC.header(bytes));
        assertEquals((byte) 0xAC, bytes[0], "magic");
        assertEquals(1, bytes[1], "format version");
        byte[] body = Arrays.copyOfRange(bytes, 6, bytes.length);
        // The pre-release reflective format started every value with its RECORD tag, 10.
        MalformedDataException old = assertThrows(MalformedDataException.class,
                () -> decode(concat(bytes(10), varint(3), body)));
        assertTrue(old.getMessage().contains("pre-release format"), old.getMessage());
        assertThrows(MalformedDataException.class, () -> decode(concat(bytes(0xAB, 1, 0, 1, 0, 1), body)));
        assertThrows(MalformedDataException.class, () -> decode(concat(bytes(0xAC, 2, 0, 1, 0, 1), body)));
        assertThrows(MalformedDataException.class, () -> decode(bytes(0xAC, 1, 0, 1, 0)));
        int beyond = FeatureLevel.LATEST + 1;
        MalformedDataException newer = assertThrows(MalformedDataException.class,
                () -> decode(concat(bytes(0xAC, 1, 0, beyond, 0, 1), body)));
        assertTrue(newer.getMessage().contains("feature level " + beyond), newer.getMessage());
        // A header that understates the level of what follows.
        MalformedDataException understated = assertThrows(MalformedDataException.class,
                () -> decode(concat(bytes(0xAC, 1, 0, 0, 0, 1), body)));
        assertTrue(understated.getMessage().contains("declares feature level 0"), understated.getMessage());
    }

    @Test
    void replaceStreamRange_needsTheKeyCompactionLevel() {
        Object replace = CodecSamples.golden().get(io.aloft.stream.metadata.ReplaceStreamRangeRequest.class);
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(replace, FeatureLevel.INITIAL,
                FeatureLevel.INITIAL));
        byte[] frame = CODEC.encode(replace, FeatureLevel.KEY_COMPACTION, FeatureLevel.KEY_COMPACTION);
        assertEquals(FeatureLevel.KEY_COMPACTION, CODEC.header(frame).level());
    }

    @Test
    void encodingOutsideTheSupportedLevelsFails() {
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(RANGE, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> CODEC.encode(RANGE, FeatureLevel.LATEST + 1, 1));
    }

    @Test
    void everyTruncationOfEverySampleIsMalformed() {
        for (Object sample : samples()) {
            byte[] bytes = encode(sample);
            for (int len = 0; len < bytes.length; len++) {
                byte[] prefix = Arrays.copyOf(bytes, len);
                assertThrows(MalformedDataException.class, () -> decode(prefix),
                        () -> sample + " cut to " + prefix.length + " bytes");
            }
        }
    }

    @Test
    void trailingBytesAreMalformed() {
        byte[] bytes = encode(RANGE);
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(MalformedDataException.class, () -> decode(longer));
    }

    @Test
    void unknownTypeIdsAreMalformed() {
        for (long id : new long[] {9, 15, 176, 999, Integer.MAX_VALUE, Long.MAX_VALUE, -1, Long.MIN_VALUE}) {
            MalformedDataException e = assertThrows(MalformedDataException.class,
                    () -> decode(frame(1, varints(id, 0))), "id " + id);
            assertTrue(e.getMessage().contains("type id"), e.getMessage());
        }
    }

    @Test
    void aRecordVersionThisBuildDoesNotKnowIsMalformed_namingTypeAndVersion() {
        MalformedDataException e = assertThrows(MalformedDataException.class,
                () -> decode(frame(1, varints(STREAM_RANGE, 1, 1, 2, 3, 4))));
        assertTrue(e.getMessage().contains("StreamRange") && e.getMessage().contains("version 1"), e.getMessage());
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(STREAM_RANGE, -1, 1, 2, 3, 4))));
    }

    @Test
    void enumsAndRecordsAreNotInterchangeable() {
        // A request whose command is an enum (not a record); an enum code past the end; a record id as an enum.
        byte[] enumCommand = frame(1, varints(REQUEST, 0), new byte[16], varints(1, 2), varints(BROKER_STATE, 0));
        byte[] badCode = frame(1, varints(BROKER_STATE, 3));
        byte[] negativeCode = frame(1, varints(BROKER_STATE, -1));
        for (byte[] b : List.of(enumCommand, badCode, negativeCode)) {
            assertThrows(MalformedDataException.class, () -> decode(b), hex(b));
        }
        // A built-in kind where a command belongs.
        byte[] longCommand = frame(1, varints(REQUEST, 0), new byte[16], varints(1, 2), varints(INT64, 5));
        assertThrows(MalformedDataException.class, () -> decode(longCommand));
    }

    @Test
    void lengthsBeyondTheInputAreMalformedWithoutAllocating() {
        // Lengths far past the input: must fail on the check, not allocate gigabytes first.
        for (int kind : new int[] {STRING, BYTES, LIST, MAP}) {
            for (long length : new long[] {2, Integer.MAX_VALUE, 1L << 40, Long.MAX_VALUE, -2}) {
                byte[] b = frame(1, varints(kind, length), bytes(0));
                assertThrows(MalformedDataException.class, () -> decode(b), "kind " + kind + " length " + length);
            }
        }
        // -1 is null for string and bytes fields, never for a tagged string or a count.
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(STRING, -1))));
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(LIST, -1))));
    }

    @Test
    void overlongVarintsAndOutOfRangeIntsAreMalformed() {
        byte[] elevenBytes = new byte[11];
        Arrays.fill(elevenBytes, (byte) 0x80);
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varint(INT64), elevenBytes, bytes(0))));
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(INT32, 1L << 40))));
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(INT32, Long.MIN_VALUE))));
    }

    @Test
    void invalidBooleansPresenceBytesAndUtf8AreMalformed() {
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varint(3), bytes(2))));
        // Reply: value null, then the failure's presence byte 2.
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(17, 0, NULL), bytes(2))));
        assertThrows(MalformedDataException.class, () -> decode(frame(1, varints(STRING, 2), bytes(0xC3, 0x28))));
    }

    @Test
    void excessiveNestingIsMalformedNotAStackOverflow() {
        for (int depth : new int[] {40, 100_000}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = 0; i < depth; i++) {
                out.writeBytes(varints(LIST, 1)); // a list of one element...
            }
            out.writeBytes(varint(NULL)); // ...down to a null
            byte[] b = frame(1, out.toByteArray());
            assertThrows(MalformedDataException.class, () -> decode(b), "depth " + depth);
        }
        Object nested = List.of(List.of(List.of(List.of("deep"))));
        assertEquals(nested, decode(encode(nested)));
    }

    @Test
    void constructorValidationOnDecodeIsMalformed() {
        // StreamRange requires end > start; Endpoint requires a port in [0, 65535].
        MalformedDataException e = assertThrows(MalformedDataException.class,
                () -> decode(frame(1, varints(STREAM_RANGE, 0, 1, 1, 5, 5))));
        assertTrue(e.getMessage().contains("StreamRange"), e.getMessage());
        byte[] endpoint = encode(new Endpoint("L", "h", 1, "P"));
        byte[] badPort = replaceLast(endpoint, concat(varint(1), string("P")), concat(varint(70_000), string("P")));
        assertThrows(MalformedDataException.class, () -> decode(badPort));
    }

    @Test
    void nullsTheStateCannotApplyAreRefusedAtDecode() {
        // Each of these would have thrown NullPointerException in apply (or query) on every replica.
        List<byte[]> inputs = List.of(
                frame(1, varints(DELETE_KV, 0, -1)),
                frame(1, varints(GET_KV, 0, -1)),
                frame(1, varints(ENDPOINT, 0), string("L"), varint(-1), varint(1), string("P")),
                frame(1, varints(REGISTER_BROKER, 0, 1, -1, 0, -1), varints(0, 1, 1)));
        for (byte[] b : inputs) {
            MalformedDataException e = assertThrows(MalformedDataException.class, () -> decode(b), hex(b));
            assertTrue(e.getMessage().startsWith("bad "), "refused by the record's constructor: " + e.getMessage());
        }
    }

    @Test
    void encodingWhatHasNoSchemaFails() {
        assertThrows(IllegalArgumentException.class, () -> encode(new NoSchema(1)));
        assertThrows(IllegalArgumentException.class, () -> encode(Reply.of(new NoSchema(1))));
        assertThrows(IllegalArgumentException.class, () -> encode(NoSchemaEnum.A));
        assertThrows(IllegalArgumentException.class, () -> encode(1.5d));
        assertThrows(IllegalArgumentException.class, () -> encode(List.of(new Object())));
        assertThrows(IllegalArgumentException.class, () -> encode(Map.of(1, "x")));
        assertThrows(IllegalArgumentException.class, () -> encode(new Request(new UUID(1, 1), 1, 1, 5L)));
    }

    @Test
    void randomBytesOnlyEverFailAsMalformed_andWhatDecodesHasTheDeclaredTypes() {
        long seed = 0x5eed_a10f_7L;
        Random random = new Random(seed);
        List<byte[]> valid = samples().stream().map(ControllerCodecTest::encode).toList();
        List<Object> decodedAny = new ArrayList<>();
        for (int i = 0; i < 30_000; i++) {
            byte[] input;
            if (i % 2 == 0) {
                // Noise after a valid header, biased towards small varints so decoding gets past the type id.
                byte[] noise = new byte[random.nextInt(48)];
                for (int j = 0; j < noise.length; j++) {
                    noise[j] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : random.nextInt(40));
                }
                input = frame(1, noise);
            } else {
                // A valid frame with a few bytes changed: reaches deep into records.
                input = valid.get(random.nextInt(valid.size())).clone();
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            }
            try {
                Object value = decode(input);
                assertTrue(conformsDeeply(value), () -> "seed " + seed + " decoded ill-typed " + value);
                decodedAny.add(value);
            } catch (MalformedDataException expected) {
                // the only allowed failure
            } catch (Throwable t) {
                fail("seed " + seed + " iteration " + i + " input " + hex(input) + " threw " + t, t);
            }
        }
        assertTrue(decodedAny.size() > 100, "the mutations reach past the checks often enough to mean something: "
                + decodedAny.size());
    }
}
