package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.config.ConfigKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The sample config/server.properties agrees with the declarations: it names every key a broker
 * reads and no other, a commented-out {@code #key=value} line shows the key's default, and the
 * settings it makes are valid.
 */
class ServerPropertiesTest {
    /** {@code key=value}, or {@code #key=value} (a default shown); prose comments have a space after '#'. */
    private static final Pattern SETTING = Pattern.compile("^(#?)([a-z][a-z0-9._-]*)=(.*)$");

    private record Line(int number, boolean commented, String key, String value) {
    }

    private static List<Line> lines() throws Exception {
        List<String> text = Files.readAllLines(ConfigReferenceTest.projectRoot().resolve("config/server.properties"),
                StandardCharsets.UTF_8);
        List<Line> out = new ArrayList<>();
        for (int i = 0; i < text.size(); i++) {
            Matcher m = SETTING.matcher(text.get(i).trim());
            if (m.matches()) {
                out.add(new Line(i + 1, !m.group(1).isEmpty(), m.group(2), m.group(3).trim()));
            }
        }
        return out;
    }

    @Test
    void everyKey_isKnown_andEveryServerKeyIsThere() throws Exception {
        Set<String> inFile = new TreeSet<>();
        List<String> unknown = new ArrayList<>();
        for (Line l : lines()) {
            inFile.add(l.key());
            if (!ServerConfig.ALL.contains(l.key())) {
                unknown.add("line " + l.number() + ": " + l.key());
            }
        }
        assertTrue(unknown.isEmpty(), "keys no module reads: " + unknown);
        Set<String> missing = new TreeSet<>(ServerConfig.ALL.names());
        missing.removeAll(inFile);
        assertTrue(missing.isEmpty(), "keys config/server.properties does not describe: " + missing);
    }

    @Test
    void commentedOutSettings_showTheDefault() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Line l : lines()) {
            ConfigKey<?> key = ServerConfig.ALL.key(l.key());
            if (l.commented() && key != null && key.defaultValue() != null) {
                String expected = formattedDefault(key);
                if (!expected.equals(l.value())) {
                    wrong.add("line " + l.number() + ": " + l.key() + "=" + l.value() + ", default " + expected);
                }
            }
        }
        assertTrue(wrong.isEmpty(), "commented-out lines must show the default: " + wrong);
    }

    @Test
    void activeSettings_areValid() throws Exception {
        Map<String, String> props = new LinkedHashMap<>();
        for (Line l : lines()) {
            if (!l.commented()) {
                props.put(l.key(), l.value());
            }
        }
        ServerConfig config = ServerConfig.fromProperties(props);
        assertEquals(1, config.controller().nodeId());
    }

    private static <T> String formattedDefault(ConfigKey<T> key) {
        return key.format(key.defaultValue());
    }
}
