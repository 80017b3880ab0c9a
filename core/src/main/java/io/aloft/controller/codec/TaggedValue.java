package io.aloft.controller.codec;

import io.aloft.controller.codec.CanonicalText.Doc;
import io.aloft.controller.model.FeatureLevel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The tagged ("any") value of the few polymorphic positions: a frame's value, a request's command,
 * a reply's value. A varint type id comes first: ids below {@link SchemaRegistry#FIRST_TYPE_ID} are
 * the built-in kinds below, the others name a registered record (then its version and fields) or
 * enum (then a constant's code). An unknown id is malformed.
 *
 * <p>Built-in kinds have no versions; they need feature level {@link FeatureLevel#INITIAL}. Map
 * keys are strings, in ascending order (so a map has one encoding).
 *
 * <p>Immutable and thread-safe.
 */
final class TaggedValue extends FieldType<Object> {
    // Built-in kinds: part of the wire format, never renumbered.
    static final int NULL = 0;
    static final int INT64 = 1;
    static final int INT32 = 2;
    static final int BOOLEAN = 3;
    static final int STRING = 4;
    static final int BYTES = 5;
    static final int UUID_KIND = 6;
    static final int LIST = 7;
    static final int MAP = 8;

    static final TaggedValue ANY = new TaggedValue("any", false);
    static final TaggedValue ANY_RECORD = new TaggedValue("any-record", true);

    private final boolean recordsOnly;

    private TaggedValue(String name, boolean recordsOnly) {
        super(name);
        this.recordsOnly = recordsOnly;
    }

    @Override
    boolean nullable() {
        return !recordsOnly;
    }

    @Override
    void write(WireWriter out, Object value) {
        SchemaRegistry registry = out.registry();
        if (value != null && value.getClass().isRecord()) {
            RecordSchema<Object> schema = registry.recordSchema(value.getClass());
            out.putVarLong(schema.typeId());
            schema.write(out, value);
            return;
        }
        if (recordsOnly) {
            throw new IllegalArgumentException("a command must be a record with a schema, not "
                    + (value == null ? "null" : value.getClass().getName()));
        }
        if (value instanceof Enum<?> e) {
            EnumSchema<?> schema = registry.enumSchema(e.getDeclaringClass());
            out.putVarLong(schema.typeId());
            schema.writeUnchecked(out, e);
            return;
        }
        out.met(FeatureLevel.INITIAL);
        if (value == null) {
            out.putVarLong(NULL);
        } else if (value instanceof Long l) {
            out.putVarLong(INT64);
            out.putVarLong(l);
        } else if (value instanceof Integer i) {
            out.putVarLong(INT32);
            out.putVarLong(i);
        } else if (value instanceof Boolean b) {
            out.putVarLong(BOOLEAN);
            FieldType.BOOLEAN.write(out, b);
        } else if (value instanceof String s) {
            out.putVarLong(STRING);
            FieldType.STRING.write(out, s);
        } else if (value instanceof byte[] bytes) {
            out.putVarLong(BYTES);
            FieldType.BYTES.write(out, bytes);
        } else if (value instanceof UUID uuid) {
            out.putVarLong(UUID_KIND);
            FieldType.UUID.write(out, uuid);
        } else if (value instanceof List<?> list) {
            out.putVarLong(LIST);
            out.putVarLong(list.size());
            for (Object element : list) {
                write(out, element);
            }
        } else if (value instanceof Map<?, ?> map) {
            out.putVarLong(MAP);
            List<Map.Entry<String, Object>> entries = FieldType.sorted(stringKeyed(map), "map");
            out.putVarLong(entries.size());
            for (Map.Entry<String, Object> e : entries) {
                FieldType.STRING.write(out, e.getKey());
                write(out, e.getValue());
            }
        } else {
            throw new IllegalArgumentException("cannot encode a " + value.getClass().getName());
        }
    }

    private static Map<String, Object> stringKeyed(Map<?, ?> map) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new IllegalArgumentException("a tagged map's keys must be strings, not "
                        + (e.getKey() == null ? "null" : e.getKey().getClass().getName()));
            }
            out.put(key, e.getValue());
        }
        return out;
    }

    @Override
    Object read(WireReader in) {
        in.enter();
        Object value = readTagged(in);
        in.exit();
        return value;
    }

    private Object readTagged(WireReader in) {
        long id = in.getVarLong();
        if (id >= SchemaRegistry.FIRST_TYPE_ID && id <= Integer.MAX_VALUE) {
            Object schema = in.registry().byId((int) id);
            if (schema instanceof RecordSchema<?> record) {
                return record.read(in);
            }
            if (schema instanceof EnumSchema<?> enumSchema && !recordsOnly) {
                return enumSchema.read(in);
            }
            if (schema == null) {
                throw new MalformedDataException("unknown type id " + id + " (not in this build's registry)");
            }
            throw new MalformedDataException("type id " + id + " (" + ((EnumSchema<?>) schema).name()
                    + ") where a record belongs");
        }
        if (recordsOnly) {
            throw new MalformedDataException("type id " + id + " where a record belongs");
        }
        in.met(FeatureLevel.INITIAL);
        switch ((int) Math.max(-1, Math.min(id, Integer.MAX_VALUE))) {
            case NULL:
                return null;
            case INT64:
                return in.getVarLong();
            case INT32:
                return in.getVarInt("int32");
            case BOOLEAN:
                return FieldType.BOOLEAN.read(in);
            case STRING: {
                String s = FieldType.STRING.read(in);
                if (s == null) {
                    throw new MalformedDataException("a tagged string is null (the null kind exists for that)");
                }
                return s;
            }
            case BYTES: {
                byte[] bytes = FieldType.BYTES.read(in);
                if (bytes == null) {
                    throw new MalformedDataException("tagged bytes are null (the null kind exists for that)");
                }
                return bytes;
            }
            case UUID_KIND:
                return FieldType.UUID.read(in);
            case LIST: {
                int count = in.getLength("list", false);
                List<Object> list = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    list.add(read(in));
                }
                return Collections.unmodifiableList(list);
            }
            case MAP: {
                int count = in.getLength("map", false);
                Map<String, Object> map = new LinkedHashMap<>();
                String previous = null;
                for (int i = 0; i < count; i++) {
                    String key = FieldType.STRING.read(in);
                    if (key == null || (previous != null && previous.compareTo(key) >= 0)) {
                        throw new MalformedDataException("map keys are null, out of order or repeated");
                    }
                    map.put(key, read(in));
                    previous = key;
                }
                return Collections.unmodifiableMap(map);
            }
            default:
                throw new MalformedDataException("unknown type id " + id);
        }
    }

    @Override
    Doc doc(Object value, CanonicalText.Context context) {
        SchemaRegistry registry = context.registry();
        if (value.getClass().isRecord()) {
            return registry.recordSchema(value.getClass()).doc(value, context);
        }
        if (value instanceof Enum<?> e) {
            EnumSchema<?> schema = registry.enumSchema(e.getDeclaringClass());
            return CanonicalText.text(schema.name() + "." + schema.nameOfUnchecked(e));
        }
        if (value instanceof Long l) {
            return CanonicalText.text("int64 " + l);
        } else if (value instanceof Integer i) {
            return CanonicalText.text("int32 " + i);
        } else if (value instanceof Boolean b) {
            return CanonicalText.text("boolean " + b);
        } else if (value instanceof String s) {
            return CanonicalText.text("string " + CanonicalText.quote(s));
        } else if (value instanceof byte[] bytes) {
            return CanonicalText.text("bytes " + CanonicalText.flat(FieldType.BYTES.doc(bytes, context)));
        } else if (value instanceof UUID uuid) {
            return CanonicalText.text("uuid " + uuid);
        } else if (value instanceof List<?> list) {
            List<Doc> items = new ArrayList<>(list.size());
            for (Object element : list) {
                items.add(docOf(element, context));
            }
            return CanonicalText.group("list [", items, "]");
        } else if (value instanceof Map<?, ?> map) {
            List<Doc> items = new ArrayList<>(map.size());
            for (Map.Entry<String, Object> e : FieldType.sorted(stringKeyed(map), "map")) {
                items.add(CanonicalText.entry(CanonicalText.quote(e.getKey()), docOf(e.getValue(), context)));
            }
            return CanonicalText.group("map {", items, "}");
        }
        throw new IllegalArgumentException("cannot render a " + value.getClass().getName());
    }
}
