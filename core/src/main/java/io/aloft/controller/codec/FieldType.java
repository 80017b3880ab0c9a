package io.aloft.controller.codec;

import io.aloft.controller.codec.CanonicalText.Doc;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The type of one record field: how its value is written, read and rendered as canonical text.
 * The wire form of each is in the {@linkplain io.aloft.controller.codec package description}.
 *
 * <p>Only {@link #STRING}, {@link #BYTES}, {@link #ANY} and {@link #nullable} types hold null;
 * writing null into any other is an {@link IllegalArgumentException}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <V> the Java type of the values
 */
public abstract class FieldType<V> {
    private final String name;

    FieldType(String name) {
        this.name = name;
    }

    /** The type's name in schemas and error messages, e.g. {@code list<int64>}. */
    public final String name() {
        return name;
    }

    @Override
    public final String toString() {
        return name;
    }

    boolean nullable() {
        return false;
    }

    /** Writes a value (non-null unless {@link #nullable}). */
    abstract void write(WireWriter out, V value);

    abstract V read(WireReader in);

    /** The canonical text of a value (see {@link CanonicalText}). */
    abstract Doc doc(V value, CanonicalText.Context context);

    /** Writes {@code value}, which comes from an untyped accessor or list; {@code where} names it in errors. */
    @SuppressWarnings("unchecked")
    final void writeChecked(WireWriter out, Object value, String where) {
        if (value == null && !nullable()) {
            throw new IllegalArgumentException(where + " is null; " + name + " values are not nullable");
        }
        write(out, (V) value);
    }

    @SuppressWarnings("unchecked")
    final Doc docOf(Object value, CanonicalText.Context context) {
        return value == null ? CanonicalText.text("null") : doc((V) value, context);
    }

    // ---- the types ----

    /** A 32-bit signed integer: zig-zag varint. */
    public static final FieldType<Integer> INT32 = new FieldType<>("int32") {
        @Override
        void write(WireWriter out, Integer value) {
            out.putVarLong(value);
        }

        @Override
        Integer read(WireReader in) {
            return in.getVarInt("int32");
        }

        @Override
        Doc doc(Integer value, CanonicalText.Context context) {
            return CanonicalText.text(value.toString());
        }
    };

    /** A 64-bit signed integer: zig-zag varint. */
    public static final FieldType<Long> INT64 = new FieldType<>("int64") {
        @Override
        void write(WireWriter out, Long value) {
            out.putVarLong(value);
        }

        @Override
        Long read(WireReader in) {
            return in.getVarLong();
        }

        @Override
        Doc doc(Long value, CanonicalText.Context context) {
            return CanonicalText.text(value.toString());
        }
    };

    /** One byte, 0 or 1 (anything else is malformed). */
    public static final FieldType<Boolean> BOOLEAN = new FieldType<>("boolean") {
        @Override
        void write(WireWriter out, Boolean value) {
            out.put((byte) (value ? 1 : 0));
        }

        @Override
        Boolean read(WireReader in) {
            byte b = in.get();
            if (b != 0 && b != 1) {
                throw new MalformedDataException("boolean byte " + b + " is neither 0 nor 1");
            }
            return b == 1;
        }

        @Override
        Doc doc(Boolean value, CanonicalText.Context context) {
            return CanonicalText.text(value.toString());
        }
    };

    /** A nullable UTF-8 string: varint byte length (-1 for null), then the bytes (strictly valid UTF-8). */
    public static final FieldType<String> STRING = new FieldType<>("string") {
        @Override
        boolean nullable() {
            return true;
        }

        @Override
        void write(WireWriter out, String value) {
            if (value == null) {
                out.putVarLong(-1);
                return;
            }
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            out.putVarLong(utf8.length);
            out.put(utf8);
        }

        @Override
        String read(WireReader in) {
            int length = in.getLength("string", true);
            return length < 0 ? null : utf8(in.getBytes(length));
        }

        @Override
        Doc doc(String value, CanonicalText.Context context) {
            return CanonicalText.text(CanonicalText.quote(value));
        }
    };

    /** Nullable bytes: varint length (-1 for null), then the bytes. */
    public static final FieldType<byte[]> BYTES = new FieldType<>("bytes") {
        @Override
        boolean nullable() {
            return true;
        }

        @Override
        void write(WireWriter out, byte[] value) {
            if (value == null) {
                out.putVarLong(-1);
                return;
            }
            out.putVarLong(value.length);
            out.put(value);
        }

        @Override
        byte[] read(WireReader in) {
            int length = in.getLength("bytes", true);
            return length < 0 ? null : in.getBytes(length);
        }

        @Override
        Doc doc(byte[] value, CanonicalText.Context context) {
            return CanonicalText.text("0x" + HexFormat.of().formatHex(value));
        }
    };

    /** A UUID: 16 bytes, most significant half first, each big-endian. */
    public static final FieldType<UUID> UUID = new FieldType<>("uuid") {
        @Override
        void write(WireWriter out, UUID value) {
            out.putLong(value.getMostSignificantBits());
            out.putLong(value.getLeastSignificantBits());
        }

        @Override
        UUID read(WireReader in) {
            return new UUID(in.getLong(), in.getLong());
        }

        @Override
        Doc doc(UUID value, CanonicalText.Context context) {
            return CanonicalText.text(value.toString());
        }
    };

    /** A value of any registered type or built-in kind, tagged with its type id (see {@link TaggedValue}). */
    public static final FieldType<Object> ANY = TaggedValue.ANY;

    /** A non-null value of any registered record type, tagged with its type id and version. */
    public static final FieldType<Object> ANY_RECORD = TaggedValue.ANY_RECORD;

    /** An enum constant by its explicit code (a varint); an unknown code is malformed. */
    public static <E extends Enum<E>> FieldType<E> enumOf(EnumSchema<E> schema) {
        return new FieldType<>(schema.name()) {
            @Override
            void write(WireWriter out, E value) {
                schema.write(out, value);
            }

            @Override
            E read(WireReader in) {
                return schema.read(in);
            }

            @Override
            Doc doc(E value, CanonicalText.Context context) {
                return CanonicalText.text(schema.nameOf(value));
            }
        };
    }

    /** A nested record: its own version (a varint), then its fields (see {@link RecordSchema}). */
    public static <R> FieldType<R> record(RecordSchema<R> schema) {
        return new FieldType<>(schema.name()) {
            @Override
            void write(WireWriter out, R value) {
                schema.write(out, value);
            }

            @Override
            R read(WireReader in) {
                in.enter();
                R value = schema.read(in);
                in.exit();
                return value;
            }

            @Override
            Doc doc(R value, CanonicalText.Context context) {
                return schema.doc(value, context);
            }
        };
    }

    /** A list: varint count, then each element. Decodes to an unmodifiable list. */
    public static <E> FieldType<List<E>> listOf(FieldType<E> element) {
        return new FieldType<>("list<" + element.name() + ">") {
            @Override
            void write(WireWriter out, List<E> value) {
                out.putVarLong(value.size());
                for (E e : value) {
                    element.writeChecked(out, e, "an element of a " + name());
                }
            }

            @Override
            List<E> read(WireReader in) {
                in.enter();
                int count = in.getLength(name(), false);
                List<E> list = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    list.add(element.read(in));
                }
                in.exit();
                return Collections.unmodifiableList(list);
            }

            @Override
            Doc doc(List<E> value, CanonicalText.Context context) {
                List<Doc> items = new ArrayList<>(value.size());
                for (E e : value) {
                    items.add(element.docOf(e, context));
                }
                return CanonicalText.group("[", items, "]");
            }
        };
    }

    /**
     * A map: varint count, then key and value of each entry in ascending key order (so a map has
     * exactly one encoding; keys out of order or repeated are malformed). Keys are non-null and
     * {@link Comparable}. Decodes to an unmodifiable map in key order.
     */
    public static <K extends Comparable<K>, V> FieldType<Map<K, V>> mapOf(FieldType<K> key, FieldType<V> value) {
        return new FieldType<>("map<" + key.name() + ", " + value.name() + ">") {
            @Override
            void write(WireWriter out, Map<K, V> map) {
                List<Map.Entry<K, V>> entries = sorted(map, name());
                out.putVarLong(entries.size());
                for (Map.Entry<K, V> e : entries) {
                    key.writeChecked(out, e.getKey(), "a key of a " + name());
                    value.writeChecked(out, e.getValue(), "a value of a " + name());
                }
            }

            @Override
            Map<K, V> read(WireReader in) {
                in.enter();
                int count = in.getLength(name(), false);
                Map<K, V> map = new LinkedHashMap<>();
                K previous = null;
                for (int i = 0; i < count; i++) {
                    K k = key.read(in);
                    if (k == null || (previous != null && previous.compareTo(k) >= 0)) {
                        throw new MalformedDataException(name() + " keys are null, out of order or repeated");
                    }
                    map.put(k, value.read(in));
                    previous = k;
                }
                in.exit();
                return Collections.unmodifiableMap(map);
            }

            @Override
            Doc doc(Map<K, V> map, CanonicalText.Context context) {
                List<Doc> items = new ArrayList<>(map.size());
                for (Map.Entry<K, V> e : sorted(map, name())) {
                    items.add(CanonicalText.entry(CanonicalText.flat(key.docOf(e.getKey(), context)),
                            value.docOf(e.getValue(), context)));
                }
                return CanonicalText.group("{", items, "}");
            }
        };
    }

    /** A value or null: one presence byte (0 absent, 1 present), then the value if present. */
    public static <V> FieldType<V> nullable(FieldType<V> type) {
        if (type.nullable()) {
            throw new IllegalArgumentException(type.name() + " is nullable already");
        }
        return new FieldType<>(type.name() + "?") {
            @Override
            boolean nullable() {
                return true;
            }

            @Override
            void write(WireWriter out, V value) {
                if (value == null) {
                    out.put((byte) 0);
                } else {
                    out.put((byte) 1);
                    type.write(out, value);
                }
            }

            @Override
            V read(WireReader in) {
                byte present = in.get();
                if (present == 0) {
                    return null;
                }
                if (present != 1) {
                    throw new MalformedDataException("presence byte " + present + " is neither 0 nor 1");
                }
                return type.read(in);
            }

            @Override
            Doc doc(V value, CanonicalText.Context context) {
                return type.doc(value, context);
            }
        };
    }

    // ---- helpers ----

    static <K extends Comparable<K>, V> List<Map.Entry<K, V>> sorted(Map<K, V> map, String what) {
        List<Map.Entry<K, V>> entries = new ArrayList<>(map.entrySet());
        for (Map.Entry<K, V> e : entries) {
            if (e.getKey() == null) {
                throw new IllegalArgumentException("a " + what + " has a null key");
            }
        }
        entries.sort(Map.Entry.comparingByKey());
        return entries;
    }

    /** Strict UTF-8: invalid bytes are malformed, not silently replaced (a string has exactly one encoding). */
    static String utf8(byte[] bytes) {
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new MalformedDataException("string is not valid UTF-8");
        }
    }
}
