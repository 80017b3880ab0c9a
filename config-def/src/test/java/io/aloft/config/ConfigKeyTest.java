package io.aloft.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigKeyTest {
    private static final ConfigKey<Long> CAPACITY = ConfigKey.longKey("x.capacity.bytes").defaultValue(1L << 30)
            .validator(Validator.multipleOf(4096).and(Validator.atLeast(65536L))).doc("Capacity.").build();
    private static final ConfigKey<Integer> THREADS = ConfigKey.intKey("x.threads").defaultValue(1)
            .validator(Validator.between(1, 64)).doc("Threads.").build();

    private static void assertRejected(String expectedMessage, Runnable r) {
        ConfigException e = assertThrows(ConfigException.class, r::run);
        assertEquals(expectedMessage, e.getMessage());
    }

    @Test
    void parse_text_trimmedParsedAndValidated() {
        assertEquals(2L << 20, CAPACITY.parse(" 2097152 "));
        assertEquals(8, THREADS.parse("8"));
        assertEquals(8, THREADS.parse(8L), "a number of another type is read by its text");
        assertEquals(true, ConfigKey.booleanKey("x.on").defaultValue(false).doc("On.").build().parse("TRUE"));
        assertEquals(Path.of("/var/x"), ConfigKey.pathKey("x.dir").required().doc("Dir.").build().parse("/var/x "));
        assertEquals("LogAppendTime", ConfigKey.stringKey("x.type").defaultValue("CreateTime").doc("Type.").build()
                .parse(" LogAppendTime "), "text is trimmed, strings too");
    }

    @Test
    void parse_badValue_messageStartsWithKeyAndNamesValue() {
        assertRejected("x.capacity.bytes: 1000 is not a multiple of 4096", () -> CAPACITY.parse("1000"));
        assertRejected("x.capacity.bytes: 4096 is below the minimum of 65536", () -> CAPACITY.parse("4096"));
        assertRejected("x.capacity.bytes: '1GB' is not a whole number", () -> CAPACITY.parse("1GB"));
        assertRejected("x.capacity.bytes: '' is not a whole number", () -> CAPACITY.parse(""));
        assertRejected("x.threads: 65 is outside [1, 64]", () -> THREADS.parse("65"));
        assertRejected("x.threads: 3000000000 is outside the int range", () -> THREADS.parse("3000000000"));
        assertRejected("x.threads: -3000000000 is outside the int range", () -> THREADS.parse("-3000000000"));
        assertRejected("x.on: 'yes' is not true or false",
                () -> ConfigKey.booleanKey("x.on").defaultValue(false).doc("On.").build().parse("yes"));
        assertRejected("x.dir: must not be empty",
                () -> ConfigKey.pathKey("x.dir").required().doc("Dir.").build().parse(" "));
        assertRejected("x.type: 'WallTime' is not one of [CreateTime, LogAppendTime]",
                () -> ConfigKey.stringKey("x.type").defaultValue("CreateTime")
                        .validator(Validator.oneOf("CreateTime", "LogAppendTime")).doc("Type.").build()
                        .parse("WallTime"));
    }

    @Test
    void parse_unset_givesDefaultOrFailsWhenRequired() {
        assertEquals(1L << 30, CAPACITY.parse(null));
        ConfigKey<Path> required = ConfigKey.pathKey("x.path").required().doc("Path.").build();
        assertRejected("x.path: must be set", () -> required.parse(null));
        ConfigKey<Integer> computed = ConfigKey.intKey("x.batch").defaultText("a quarter of x.capacity.bytes")
                .doc("Batch.").build();
        assertNull(computed.parse(null));
        assertEquals("a quarter of x.capacity.bytes", computed.defaultText());
        assertEquals("(required)", required.defaultText());
    }

    @Test
    void validate_typedValue_sameRulesAsParse() {
        assertEquals(65536L, CAPACITY.validate(65536L));
        assertRejected("x.capacity.bytes: 1000 is not a multiple of 4096", () -> CAPACITY.validate(1000L));
        assertRejected("x.threads: must be set", () -> THREADS.validate(null));
    }

    @Test
    void customKey_parserMessagesGetTheKey() {
        ConfigKey<List<Integer>> ids = ConfigKey.customKey("x.ids", ConfigType.LIST,
                text -> Arrays.stream(text.split(",")).map(s -> {
                    try {
                        return Integer.parseInt(s.trim());
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("'" + s + "' is not an id");
                    }
                }).toList(), ConfigKey::formatList).defaultValue(List.of(1, 2)).doc("Ids.").build();
        assertEquals(List.of(3, 4), ids.parse("3, 4"));
        assertEquals("1,2", ids.defaultText());
        assertRejected("x.ids: 'b' is not an id", () -> ids.parse("5,b"));
    }

    @Test
    void build_badDeclaration_failsAtOnce() {
        assertThrows(IllegalStateException.class, () -> ConfigKey.intKey("x.a").defaultValue(1).build(),
                "documentation is mandatory");
        assertThrows(ConfigException.class, () -> ConfigKey.intKey("x.a").defaultValue(0)
                .validator(Validator.atLeast(1)).doc("A.").build(), "the default must pass the validator");
        assertThrows(IllegalStateException.class, () -> ConfigKey.intKey("x.a").defaultValue(1).required()
                .doc("A.").build());
        assertThrows(IllegalArgumentException.class, () -> ConfigKey.intKey("X A"));
    }

    @Test
    void validators_describeWhatTheyAccept() {
        assertEquals("a multiple of 4096; at least 65536", CAPACITY.validValues());
        assertEquals("1 to 64", THREADS.validValues());
        assertEquals("", ConfigKey.booleanKey("x.b").defaultValue(true).doc("B.").build().validValues());
        assertTrue(Validator.oneOf("a", "b").describe().contains("a, b"));
    }
}
