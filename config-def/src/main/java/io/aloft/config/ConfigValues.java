package io.aloft.config;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The typed values of one {@link ConfigDefinition}, as parsed: each key's value, or its default
 * when unset. A config class reads these once into its final fields. Immutable.
 */
public final class ConfigValues {
    private final ConfigDefinition definition;
    private final Map<ConfigKey<?>, Object> values;
    private final Set<ConfigKey<?>> set;

    ConfigValues(ConfigDefinition definition, Map<ConfigKey<?>, Object> values, Collection<ConfigKey<?>> set) {
        this.definition = definition;
        this.values = values;
        Set<ConfigKey<?>> s = Collections.newSetFromMap(new IdentityHashMap<>());
        s.addAll(set);
        this.set = s;
    }

    /**
     * The value of {@code key}: as set, else its fixed default, else {@code null} (a computed default).
     *
     * @throws IllegalArgumentException if the key is not in the definition parsed
     */
    public <T> T get(ConfigKey<T> key) {
        requireKnown(key);
        @SuppressWarnings("unchecked")
        T value = (T) values.get(key);
        return value;
    }

    /** Whether the properties set {@code key} (as opposed to it taking its default). */
    public boolean isSet(ConfigKey<?> key) {
        requireKnown(key);
        return set.contains(key);
    }

    private void requireKnown(ConfigKey<?> key) {
        if (!values.containsKey(key)) {
            throw new IllegalArgumentException(key.name() + " is not a key of " + definition.name());
        }
    }
}
