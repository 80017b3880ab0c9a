package io.aloft.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDefinitionTest {
    private static final ConfigKey<Integer> A = ConfigKey.intKey("m.a").defaultValue(1)
            .validator(Validator.atLeast(0)).doc("A.").build();
    private static final ConfigKey<String> B = ConfigKey.stringKey("m.b").defaultValue("x").dynamic().doc("B.")
            .build();
    private static final ConfigDefinition M = ConfigDefinition.of("m", A, B);

    @Test
    void parse_readsItsKeys_defaultsTheRest_ignoresOthers() {
        ConfigValues v = M.parse(Map.of("m.a", "5", "other.key", "whatever"));
        assertEquals(5, v.get(A));
        assertTrue(v.isSet(A));
        assertEquals("x", v.get(B));
        assertFalse(v.isSet(B));
    }

    @Test
    void parse_firstBadKeyInOrder_fails() {
        ConfigException e = assertThrows(ConfigException.class, () -> M.parse(Map.of("m.a", "-1")));
        assertEquals("m.a", e.key());
    }

    @Test
    void get_keyOfAnotherDefinition_refused() {
        ConfigKey<Integer> other = ConfigKey.intKey("n.c").defaultValue(1).doc("C.").build();
        assertThrows(IllegalArgumentException.class, () -> M.parse(Map.of()).get(other));
    }

    @Test
    void declarations_duplicateNamesRefused_sharedKeyAllowed() {
        ConfigKey<Integer> a2 = ConfigKey.intKey("m.a").defaultValue(2).doc("Another A.").build();
        assertThrows(IllegalArgumentException.class, () -> ConfigDefinition.of("m", A, a2));
        assertThrows(IllegalArgumentException.class,
                () -> ConfigDefinition.combine("all", List.of(M, ConfigDefinition.of("n", a2))));
        ConfigDefinition all = ConfigDefinition.combine("all", List.of(M, ConfigDefinition.of("n", A)));
        assertEquals(List.of(A, B), all.keys());
        assertEquals(List.of(B), all.dynamicKeys());
        assertEquals(A, all.key("m.a"));
    }
}
