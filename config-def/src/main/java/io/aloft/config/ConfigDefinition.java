package io.aloft.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys one module reads, in documentation order, under a section name ({@code wal},
 * {@code s3stream}, ...) that names its table in the README. {@link #parse} reads every key of the
 * definition from a property map in one pass; keys the definition does not know are left alone
 * (other modules read them from the same file).
 *
 * <p>Immutable and thread-safe.
 */
public final class ConfigDefinition {
    private final String name;
    private final Map<String, ConfigKey<?>> keys;

    private ConfigDefinition(String name, Map<String, ConfigKey<?>> keys) {
        this.name = name;
        this.keys = Collections.unmodifiableMap(keys);
    }

    /**
     * @throws IllegalArgumentException if two keys share a name
     */
    public static ConfigDefinition of(String name, List<ConfigKey<?>> keys) {
        Map<String, ConfigKey<?>> byName = new LinkedHashMap<>();
        for (ConfigKey<?> key : keys) {
            ConfigKey<?> previous = byName.putIfAbsent(key.name(), key);
            if (previous != null) {
                throw new IllegalArgumentException(name + ": key " + key.name() + " declared twice");
            }
        }
        return new ConfigDefinition(name, byName);
    }

    public static ConfigDefinition of(String name, ConfigKey<?>... keys) {
        return of(name, List.of(keys));
    }

    /**
     * Every key of {@code parts}, in order. A key may be shared by two parts (the same
     * declaration); two different declarations under one name are refused.
     *
     * @throws IllegalArgumentException if two parts declare one name differently
     */
    public static ConfigDefinition combine(String name, List<ConfigDefinition> parts) {
        Map<String, ConfigKey<?>> byName = new LinkedHashMap<>();
        for (ConfigDefinition part : parts) {
            for (ConfigKey<?> key : part.keys()) {
                ConfigKey<?> previous = byName.putIfAbsent(key.name(), key);
                if (previous != null && previous != key) {
                    throw new IllegalArgumentException(name + ": key " + key.name() + " is declared in two places");
                }
            }
        }
        return new ConfigDefinition(name, byName);
    }

    /** The section name, e.g. {@code wal}: the README table is marked {@code <!-- config:wal -->}. */
    public String name() {
        return name;
    }

    /** The keys in documentation order. */
    public List<ConfigKey<?>> keys() {
        return List.copyOf(keys.values());
    }

    public Set<String> names() {
        return keys.keySet();
    }

    public boolean contains(String keyName) {
        return keys.containsKey(keyName);
    }

    /** The key called {@code keyName}, or {@code null}. */
    public ConfigKey<?> key(String keyName) {
        return keys.get(keyName);
    }

    /** The keys that can change while the server runs. */
    public List<ConfigKey<?>> dynamicKeys() {
        return keys.values().stream().filter(ConfigKey::dynamic).toList();
    }

    /**
     * Parses every key of this definition from {@code props} (text or typed values); keys not in
     * the definition are ignored. Keys are checked in order and the first bad one fails.
     *
     * @throws ConfigException naming the first key whose value is bad or that is required and unset
     */
    public ConfigValues parse(Map<?, ?> props) {
        Map<ConfigKey<?>, Object> values = new IdentityHashMap<>();
        List<ConfigKey<?>> set = new ArrayList<>();
        for (ConfigKey<?> key : keys.values()) {
            Object raw = props.get(key.name());
            values.put(key, key.parse(raw));
            if (raw != null) {
                set.add(key);
            }
        }
        return new ConfigValues(this, values, set);
    }

    @Override
    public String toString() {
        return name + keys.keySet();
    }
}
