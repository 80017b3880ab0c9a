package io.aloft.controller.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Golden fixtures of every record type at every version (and every enum at every level): the
 * encoded frame and its expected canonical text, checked in under
 * {@code src/test/resources/golden/controller/records/}. Each must decode to its text and
 * re-encode to its bytes, forever: a schema change that breaks an old version fails here.
 *
 * <p>{@code -Daloft.golden.regenerate=true} writes the fixtures of the current versions from
 * {@link CodecSamples#golden()}; it never touches a fixture of an older version.
 */
class GoldenRecordsTest {
    static final String DIR = "golden/controller/records";
    private static final ControllerCodec CODEC = ControllerSchemas.CODEC;
    private static final int HEX_LINE_BYTES = 48;

    /** A fixture file: its frame and expected text. */
    record Fixture(String name, byte[] frame, String text) {
    }

    @Test
    void everyFixtureDecodesToItsTextAndReencodesToItsBytes() throws Exception {
        List<Fixture> fixtures = fixtures();
        assertTrue(fixtures.size() >= ControllerSchemas.REGISTRY.schemas().size(), "fixtures found: "
                + fixtures.size());
        for (Fixture f : fixtures) {
            ControllerCodec.Header header = CODEC.header(f.frame());
            Object value = CODEC.decode(f.frame()).value();
            assertEquals(f.text(), CODEC.render(value, header.level()), f.name() + ": decoded text");
            assertArrayEquals(f.frame(), CODEC.encode(value, header.level(), header.knownLevel()),
                    f.name() + ": re-encoded bytes");
        }
    }

    @Test
    void everyTypeHasAFixtureOfItsCurrentVersion() throws Exception {
        List<String> names = fixtures().stream().map(Fixture::name).toList();
        List<String> missing = new ArrayList<>();
        for (Object schema : ControllerSchemas.REGISTRY.schemas().values()) {
            String expected = fileName(schema);
            if (!names.contains(expected)) {
                missing.add(expected);
            }
        }
        assertEquals(List.of(), missing, "run GoldenRecordsTest with -Daloft.golden.regenerate=true (see the "
                + "fixture folder's README)");
    }

    @Test
    void goldenSamplesCoverEveryRecordType() {
        Map<Class<?>, Object> golden = CodecSamples.golden();
        List<String> missing = new ArrayList<>();
        for (Object schema : ControllerSchemas.REGISTRY.schemas().values()) {
            if (schema instanceof RecordSchema<?> r && !golden.containsKey(r.type())) {
                missing.add(r.name());
            }
        }
        assertEquals(List.of(), missing);
    }

    @Test
    @EnabledIfSystemProperty(named = "aloft.golden.regenerate", matches = "true")
    void regenerateTheFixturesOfTheCurrentVersions() throws IOException {
        Path dir = Path.of("src/test/resources").resolve(DIR);
        Files.createDirectories(dir);
        Map<Class<?>, Object> golden = CodecSamples.golden();
        for (Object schema : ControllerSchemas.REGISTRY.schemas().values()) {
            Object value;
            int level;
            String about;
            if (schema instanceof RecordSchema<?> r) {
                value = golden.get(r.type());
                level = r.levelOf(r.currentVersion());
                about = r.name() + " (type id " + r.typeId() + ") version " + r.currentVersion();
            } else {
                EnumSchema<?> e = (EnumSchema<?>) schema;
                value = List.of(e.type().getEnumConstants());
                level = e.maxLevel();
                about = "every constant of " + e.name() + " (type id " + e.typeId() + ")";
            }
            byte[] frame = CODEC.encode(value, level, level);
            Files.writeString(dir.resolve(fileName(schema)), format(about, level, frame,
                    CODEC.render(value, level)), StandardCharsets.UTF_8);
        }
    }

    /** {@code Name.vN.golden} for a record's current version, {@code Name.levelN.golden} for an enum. */
    static String fileName(Object schema) {
        if (schema instanceof RecordSchema<?> r) {
            return r.name() + ".v" + r.currentVersion() + ".golden";
        }
        EnumSchema<?> e = (EnumSchema<?>) schema;
        return e.name() + ".level" + e.maxLevel() + ".golden";
    }

    static String format(String about, int level, byte[] frame, String text) {
        StringBuilder out = new StringBuilder();
        out.append("# Golden fixture: ").append(about).append(", written for feature level ").append(level)
                .append(".\n# Checked by GoldenRecordsTest; never edit or regenerate it (see ../README.md).\n");
        out.append("[frame]\n");
        for (int i = 0; i < frame.length; i += HEX_LINE_BYTES) {
            out.append(HexFormat.of().formatHex(frame, i, Math.min(frame.length, i + HEX_LINE_BYTES))).append('\n');
        }
        return out.append("[text]\n").append(text).toString();
    }

    static List<Fixture> fixtures() throws IOException, URISyntaxException {
        Path dir = Path.of(GoldenRecordsTest.class.getResource("/" + DIR).toURI());
        List<Fixture> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".golden")).sorted().toList()) {
                out.add(parse(p.getFileName().toString(), Files.readString(p, StandardCharsets.UTF_8)));
            }
        }
        return out;
    }

    static Fixture parse(String name, String content) {
        List<String> lines = Arrays.asList(content.split("\n", -1));
        int frameAt = lines.indexOf("[frame]");
        int textAt = lines.indexOf("[text]");
        if (frameAt < 0 || textAt < frameAt) {
            throw new AssertionError(name + ": no [frame] and [text] sections");
        }
        String hex = String.join("", lines.subList(frameAt + 1, textAt));
        String text = String.join("\n", lines.subList(textAt + 1, lines.size()));
        return new Fixture(name, HexFormat.of().parseHex(hex), text);
    }
}
