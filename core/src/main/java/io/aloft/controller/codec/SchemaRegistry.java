package io.aloft.controller.codec;

import io.aloft.controller.model.FeatureRange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Every type one build can encode, by type id and by Java class, and the feature levels the build
 * supports. Production uses {@link ControllerSchemas#REGISTRY}; tests build registries with record
 * versions production does not have (a registry is data, injected into servers and clients).
 *
 * <p>Type ids below {@value #FIRST_TYPE_ID} are the built-in kinds of {@link TaggedValue}.
 *
 * <p>Immutable and thread-safe once built.
 */
public final class SchemaRegistry {
    /** The lowest id a record or enum schema may have. */
    public static final int FIRST_TYPE_ID = 16;

    private final FeatureRange supported;
    private final Map<Integer, Object> byId;
    private final Map<Class<?>, RecordSchema<?>> records;
    private final Map<Class<?>, EnumSchema<?>> enums;

    private SchemaRegistry(Builder b) {
        this.supported = b.supported;
        this.byId = Collections.unmodifiableMap(new TreeMap<>(b.byId));
        this.records = Map.copyOf(b.records);
        this.enums = Map.copyOf(b.enums);
    }

    /** A registry for a build that supports {@code supported}. */
    public static Builder builder(FeatureRange supported) {
        return new Builder(supported);
    }

    /** The feature levels this build reads and writes. */
    public FeatureRange supported() {
        return supported;
    }

    /** The record or enum schema with this id, or null. */
    public Object byId(int typeId) {
        return byId.get(typeId);
    }

    /** Every schema, by type id. */
    public Map<Integer, Object> schemas() {
        return byId;
    }

    public boolean contains(Class<?> type) {
        return records.containsKey(type) || enums.containsKey(type);
    }

    /**
     * The schema of a record type.
     *
     * @throws IllegalArgumentException when the type has none (a bug in the caller: nothing without
     *     a schema may be written)
     */
    @SuppressWarnings("unchecked")
    public <T> RecordSchema<T> recordSchema(Class<?> type) {
        RecordSchema<?> schema = records.get(type);
        if (schema == null) {
            throw new IllegalArgumentException(type.getName() + " has no schema in the controller's registry");
        }
        return (RecordSchema<T>) schema;
    }

    /** The schema of an enum type; see {@link #recordSchema}. */
    public EnumSchema<?> enumSchema(Class<?> type) {
        EnumSchema<?> schema = enums.get(type);
        if (schema == null) {
            throw new IllegalArgumentException(type.getName() + " has no schema in the controller's registry");
        }
        return schema;
    }

    /** Collects schemas; {@link #build} checks ids, names and levels. Not thread-safe. */
    public static final class Builder {
        private final FeatureRange supported;
        private final Map<Integer, Object> byId = new HashMap<>();
        private final Map<Class<?>, RecordSchema<?>> records = new HashMap<>();
        private final Map<Class<?>, EnumSchema<?>> enums = new HashMap<>();
        private final Map<String, Integer> names = new HashMap<>();

        private Builder(FeatureRange supported) {
            this.supported = Objects.requireNonNull(supported, "supported");
        }

        public Builder add(RecordSchema<?> schema) {
            claim(schema.typeId(), schema.name(), schema.type(), schema);
            records.put(schema.type(), schema);
            return this;
        }

        public Builder add(EnumSchema<?> schema) {
            claim(schema.typeId(), schema.name(), schema.type(), schema);
            enums.put(schema.type(), schema);
            return this;
        }

        /** Every schema of {@code other}. */
        public Builder addAll(SchemaRegistry other) {
            for (Object schema : other.byId.values()) {
                if (schema instanceof RecordSchema<?> r) {
                    add(r);
                } else {
                    add((EnumSchema<?>) schema);
                }
            }
            return this;
        }

        /** Swaps the schema with the same type id (and type) for {@code schema}: tests add versions this way. */
        public Builder replace(RecordSchema<?> schema) {
            Object old = byId.get(schema.typeId());
            if (!(old instanceof RecordSchema<?> r) || r.type() != schema.type()) {
                throw new IllegalArgumentException("no schema of " + schema.type().getName() + " with type id "
                        + schema.typeId() + " to replace");
            }
            names.remove(r.name());
            byId.remove(schema.typeId());
            records.remove(r.type());
            return add(schema);
        }

        private void claim(int typeId, String name, Class<?> type, Object schema) {
            if (typeId < FIRST_TYPE_ID) {
                throw new IllegalArgumentException(name + ": type id " + typeId + " is below " + FIRST_TYPE_ID
                        + " (reserved for built-in kinds)");
            }
            if (byId.containsKey(typeId)) {
                throw new IllegalArgumentException(name + ": type id " + typeId + " is taken by " + byId.get(typeId));
            }
            if (names.containsKey(name)) {
                throw new IllegalArgumentException("two schemas named " + name);
            }
            if (records.containsKey(type) || enums.containsKey(type)) {
                throw new IllegalArgumentException(type.getName() + " has two schemas");
            }
            byId.put(typeId, schema);
            names.put(name, typeId);
        }

        public SchemaRegistry build() {
            List<String> problems = new ArrayList<>();
            for (RecordSchema<?> r : records.values()) {
                for (int v = 0; v <= r.currentVersion(); v++) {
                    if (r.levelOf(v) > supported.maxLevel()) {
                        problems.add(r.name() + " v" + v + " needs feature level " + r.levelOf(v)
                                + ", above this build's " + supported);
                    }
                }
            }
            for (EnumSchema<?> e : enums.values()) {
                if (e.maxLevel() > supported.maxLevel()) {
                    problems.add(e.name() + " has a constant of feature level " + e.maxLevel() + ", above this build's "
                            + supported);
                }
            }
            if (!problems.isEmpty()) {
                throw new IllegalStateException(String.join("; ", problems));
            }
            return new SchemaRegistry(this);
        }
    }
}
