package io.aloft.controller.codec;

import io.aloft.controller.codec.CanonicalText.Doc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The explicit wire schema of one record type, in the manner of Kafka's message schemas: a stable
 * type id, versions numbered from 0 each with the {@linkplain io.aloft.controller.model.FeatureLevel
 * feature level} it needs, and fields in schema order, each with the versions that have it and a
 * default for those that do not. Nothing here follows Java's declaration order: the Java record
 * can reorder or rename its components without changing a byte.
 *
 * <p>Wire form: the version (a varint), then the fields the version has, in schema order, each in
 * its {@link FieldType}'s form. No lengths or tags: the version says exactly which fields follow.
 *
 * <p>Writing for a feature level picks the newest version whose level is at most that level; a
 * field that version lacks must hold its default (otherwise the value cannot be represented and
 * writing fails rather than dropping it). Reading accepts every version from 0 to the current one;
 * fields the version lacks get their defaults; a newer version is malformed. The record's
 * constructor runs on every read, and its validation failures are malformed data too.
 *
 * <p>Immutable and thread-safe once built. Built with a small fluent DSL:
 * <pre>{@code
 * RecordSchema.builder(69, "CreateTopic", CreateTopic.class)
 *         .version(0, FeatureLevel.INITIAL)
 *         .field("topicId", FieldType.UUID, CreateTopic::topicId)
 *         .field("name", FieldType.STRING, CreateTopic::name)
 *         .field("configs", FieldType.mapOf(FieldType.STRING, FieldType.STRING), CreateTopic::configs)
 *         .build(v -> new CreateTopic(v.get("topicId"), v.get("name"), v.get("configs")));
 * }</pre>
 * A field added in version 1 is declared {@code .field(...).since(1).orElse(default)}; one removed
 * after version 2 is declared {@code .until(2).orElse(default)} (its accessor then returns the default).
 *
 * @param <T> the record type
 */
public final class RecordSchema<T> {
    private final int typeId;
    private final String name;
    private final Class<T> type;
    /** The feature level of each version, by version number. */
    private final int[] levels;
    private final List<Field<T>> fields;
    private final Map<String, Integer> fieldIndex = new HashMap<>();
    private final Function<Values, T> constructor;

    /** One field: its name, type and accessor, the versions that have it, and the value the others imply. */
    record Field<T>(String name, FieldType<?> type, Function<T, ?> accessor, int sinceVersion, int untilVersion,
            Object defaultValue, boolean hasDefault) {
        boolean presentIn(int version) {
            return version >= sinceVersion && version <= untilVersion;
        }
    }

    private RecordSchema(Builder<T> b, Function<Values, T> constructor) {
        this.typeId = b.typeId;
        this.name = b.name;
        this.type = b.type;
        this.levels = b.levels.stream().mapToInt(Integer::intValue).toArray();
        this.fields = List.copyOf(b.fields);
        this.constructor = constructor;
        for (int i = 0; i < fields.size(); i++) {
            fieldIndex.put(fields.get(i).name(), i);
        }
    }

    public static <T> Builder<T> builder(int typeId, String name, Class<T> type) {
        return new Builder<>(typeId, name, type);
    }

    public int typeId() {
        return typeId;
    }

    /** The record's name in the wire format's terms (stable; not necessarily the Java class's). */
    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /** The newest version this build reads and writes. */
    public int currentVersion() {
        return levels.length - 1;
    }

    /** The feature level {@code version} needs. */
    public int levelOf(int version) {
        return levels[version];
    }

    /** The version written for {@code level}: the newest whose level is at most it, or -1 when none is. */
    public int versionFor(int level) {
        for (int v = levels.length - 1; v >= 0; v--) {
            if (levels[v] <= level) {
                return v;
            }
        }
        return -1;
    }

    /** The field names of {@code version}, in schema order. */
    public List<String> fieldNames(int version) {
        return fields.stream().filter(f -> f.presentIn(version)).map(Field::name).toList();
    }

    List<Field<T>> fields() {
        return fields;
    }

    // ---- wire ----

    void write(WireWriter out, T value) {
        int version = versionFor(out.level());
        if (version < 0) {
            throw new IllegalArgumentException(name + " needs feature level " + levels[0] + "; writing for level "
                    + out.level());
        }
        out.putVarLong(version);
        out.met(levels[version]);
        for (Field<T> f : fields) {
            Object fieldValue = f.accessor().apply(value);
            if (f.presentIn(version)) {
                f.type().writeChecked(out, fieldValue, name + "." + f.name());
            } else if (!Objects.deepEquals(fieldValue, f.defaultValue())) {
                throw new IllegalArgumentException(name + "." + f.name() + " is set, but version " + version
                        + " (written for feature level " + out.level() + ") does not have it: it needs a version from "
                        + f.sinceVersion() + " to " + f.untilVersion());
            }
        }
    }

    T read(WireReader in) {
        long version = in.getVarLong();
        if (version < 0 || version > currentVersion()) {
            throw new MalformedDataException(name + " (type id " + typeId + ") version " + version + " is not one "
                    + "this build reads (0 to " + currentVersion() + ")");
        }
        int v = (int) version;
        in.met(levels[v]);
        Object[] values = new Object[fields.size()];
        for (int i = 0; i < values.length; i++) {
            Field<T> f = fields.get(i);
            values[i] = f.presentIn(v) ? f.type().read(in) : f.defaultValue();
        }
        try {
            return constructor.apply(new Values(this, values));
        } catch (IllegalArgumentException | NullPointerException | ClassCastException e) {
            // A value the record's own validation rejects, or a null it cannot hold.
            throw new MalformedDataException("bad " + name + " v" + v + ": " + e.getMessage());
        }
    }

    /** The canonical text of {@code value} at the version written for the context's level. */
    Doc doc(T value, CanonicalText.Context context) {
        int version = versionFor(context.level());
        if (version < 0) {
            throw new IllegalArgumentException(name + " does not exist at feature level " + context.level());
        }
        List<Doc> items = new ArrayList<>();
        for (Field<T> f : fields) {
            if (f.presentIn(version)) {
                items.add(CanonicalText.entry(f.name(), f.type().docOf(f.accessor().apply(value), context)));
            }
        }
        return CanonicalText.group(name + " v" + version + " {", items, "}");
    }

    @Override
    public String toString() {
        return name + " (type id " + typeId + ", versions 0 to " + currentVersion() + " at feature levels "
                + Arrays.toString(levels) + ")";
    }

    /** The decoded field values handed to the constructor lambda, by field name. */
    public static final class Values {
        private final RecordSchema<?> schema;
        private final Object[] values;

        private Values(RecordSchema<?> schema, Object[] values) {
            this.schema = schema;
            this.values = values;
        }

        /** The value of field {@code fieldName} (its default when the version read lacks it). */
        @SuppressWarnings("unchecked")
        public <V> V get(String fieldName) {
            Integer i = schema.fieldIndex.get(fieldName);
            if (i == null) {
                throw new IllegalStateException(schema.name + " has no field " + fieldName);
            }
            return (V) values[i];
        }
    }

    /** Declares a schema; {@link #build} checks it. Not thread-safe. */
    public static final class Builder<T> {
        private final int typeId;
        private final String name;
        private final Class<T> type;
        private final List<Integer> levels = new ArrayList<>();
        private final List<Field<T>> fields = new ArrayList<>();

        private Builder(int typeId, String name, Class<T> type) {
            this.typeId = typeId;
            this.name = Objects.requireNonNull(name, "name");
            this.type = Objects.requireNonNull(type, "type");
        }

        /** Declares the next version (0, 1, ... in order) and the feature level it needs (rising with each version). */
        public Builder<T> version(int version, int featureLevel) {
            if (version != levels.size()) {
                throw new IllegalArgumentException(name + ": version " + version + " declared where version "
                        + levels.size() + " is next");
            }
            if (!levels.isEmpty() && featureLevel <= levels.get(levels.size() - 1)) {
                throw new IllegalArgumentException(name + ": version " + version + " needs feature level "
                        + featureLevel + ", not above version " + (version - 1) + "'s");
            }
            levels.add(featureLevel);
            return this;
        }

        /**
         * Declares the next field, present from version 0 on; {@link #since}, {@link #until} and
         * {@link #orElse} amend it.
         */
        public <V> Builder<T> field(String fieldName, FieldType<V> fieldType, Function<T, V> accessor) {
            for (Field<T> f : fields) {
                if (f.name().equals(fieldName)) {
                    throw new IllegalArgumentException(name + ": field " + fieldName + " declared twice");
                }
            }
            fields.add(new Field<>(fieldName, fieldType, accessor, 0, Integer.MAX_VALUE, null, false));
            return this;
        }

        /** The last declared field first appears in {@code version}. */
        public Builder<T> since(int version) {
            Field<T> f = last();
            replaceLast(new Field<>(f.name(), f.type(), f.accessor(), version, f.untilVersion(), f.defaultValue(),
                    f.hasDefault()));
            return this;
        }

        /** The last declared field was removed after {@code lastVersion}. */
        public Builder<T> until(int lastVersion) {
            Field<T> f = last();
            replaceLast(new Field<>(f.name(), f.type(), f.accessor(), f.sinceVersion(), lastVersion, f.defaultValue(),
                    f.hasDefault()));
            return this;
        }

        /** The last declared field's value in versions without it. */
        public Builder<T> orElse(Object defaultValue) {
            Field<T> f = last();
            replaceLast(new Field<>(f.name(), f.type(), f.accessor(), f.sinceVersion(), f.untilVersion(), defaultValue,
                    true));
            return this;
        }

        private Field<T> last() {
            if (fields.isEmpty()) {
                throw new IllegalStateException(name + ": no field declared yet");
            }
            return fields.get(fields.size() - 1);
        }

        private void replaceLast(Field<T> f) {
            fields.set(fields.size() - 1, f);
        }

        /** Checks the declaration and returns the schema; {@code constructor} builds the record from decoded values. */
        public RecordSchema<T> build(Function<Values, T> constructor) {
            if (levels.isEmpty()) {
                throw new IllegalStateException(name + ": no version declared");
            }
            if (!type.isRecord()) {
                throw new IllegalStateException(name + ": " + type.getName() + " is not a record");
            }
            int current = levels.size() - 1;
            for (Field<T> f : fields) {
                if (f.sinceVersion() < 0 || f.sinceVersion() > current || f.untilVersion() < f.sinceVersion()) {
                    throw new IllegalStateException(name + "." + f.name() + ": versions " + f.sinceVersion() + " to "
                            + f.untilVersion() + " are not within 0 to " + current);
                }
                boolean inEveryVersion = f.sinceVersion() == 0 && f.untilVersion() >= current;
                if (!inEveryVersion && !f.hasDefault()) {
                    throw new IllegalStateException(name + "." + f.name() + " is missing from some versions and "
                            + "needs a default (orElse)");
                }
            }
            return new RecordSchema<>(this, constructor);
        }
    }
}
