package io.aloft.controller.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Binary form of the controller's commands, replies and snapshots: any tree of registered records,
 * enums, lists, maps, strings, byte arrays, UUIDs and primitives.
 *
 * <p>Why a reflective codec over records rather than one hand-written codec per command: the
 * commands are plain immutable records already (s3stream's metadata requests among them), and a
 * single codec that walks record components keeps the wire form and the Java types from drifting
 * apart. Every value carries a one-byte tag, so decoding needs no schema beyond the registry.
 *
 * <p>Compatibility: a record is written as its index in the registry list followed by its
 * components in declaration order. The registry is append-only: never reorder or remove an entry,
 * and add record components only at the end together with a new type (the log and snapshots
 * written by an older version must stay readable).
 *
 * <p>Decoding is defensive: the input may come from a corrupted file or a hostile client. Every
 * length is checked against the bytes left and nested depth is bounded, so bad input fails with
 * {@link MalformedDataException}, never an out-of-memory or a stack overflow. Record constructors
 * run on decode, so their validation applies too (and is reported the same way).
 *
 * <p>Thread-safe and immutable after construction.
 */
public final class RecordCodec {

    private static final byte NULL = 0;
    private static final byte LONG = 1;
    private static final byte INT = 2;
    private static final byte BOOLEAN = 3;
    private static final byte STRING = 4;
    private static final byte BYTES = 5;
    private static final byte LIST = 6;
    private static final byte MAP = 7;
    private static final byte UUID_TAG = 8;
    private static final byte ENUM = 9;
    private static final byte RECORD = 10;

    private static final int MAX_DEPTH = 32;

    private final List<Class<?>> types;
    private final Map<Class<?>, Integer> typeIds = new HashMap<>();
    private final Map<Class<?>, RecordShape> shapes = new HashMap<>();

    /** Accessors, declared component types and canonical constructor of one record type, resolved once. */
    private record RecordShape(MethodHandle[] accessors, Type[] componentTypes, MethodHandle constructor) {
    }

    /**
     * @param types the records and enums that may appear, in their permanent order (see the class
     *     comment on compatibility)
     */
    public RecordCodec(List<Class<?>> types) {
        this.types = List.copyOf(types);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        for (int i = 0; i < this.types.size(); i++) {
            Class<?> type = this.types.get(i);
            if (typeIds.putIfAbsent(type, i) != null) {
                throw new IllegalArgumentException(type.getName() + " registered twice");
            }
            if (type.isRecord()) {
                shapes.put(type, shapeOf(lookup, type));
            } else if (!type.isEnum()) {
                throw new IllegalArgumentException(type.getName() + " is neither a record nor an enum");
            }
        }
    }

    private static RecordShape shapeOf(MethodHandles.Lookup lookup, Class<?> type) {
        RecordComponent[] components = type.getRecordComponents();
        MethodHandle[] accessors = new MethodHandle[components.length];
        Type[] componentTypes = new Type[components.length];
        Class<?>[] parameterTypes = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                accessors[i] = lookup.unreflect(components[i].getAccessor());
                componentTypes[i] = components[i].getGenericType();
                parameterTypes[i] = components[i].getType();
            }
            MethodHandle constructor = lookup.findConstructor(type, MethodType.methodType(void.class, parameterTypes));
            return new RecordShape(accessors, componentTypes, constructor.asSpreader(Object[].class,
                    components.length));
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("record " + type.getName() + " must be public with a public "
                    + "canonical constructor", e);
        }
    }

    // ---- encoding ----

    /** Encodes {@code value} (a registered record or enum, or any supported value) to a new array. */
    public byte[] encode(Object value) {
        GrowableBuffer out = new GrowableBuffer(256);
        write(out, value);
        return out.toByteArray();
    }

    private void write(GrowableBuffer out, Object value) {
        if (value == null) {
            out.put(NULL);
        } else if (value instanceof Long l) {
            out.put(LONG);
            out.putVarLong(l);
        } else if (value instanceof Integer i) {
            out.put(INT);
            out.putVarLong(i);
        } else if (value instanceof Boolean b) {
            out.put(BOOLEAN);
            out.put((byte) (b ? 1 : 0));
        } else if (value instanceof String s) {
            out.put(STRING);
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            out.putVarLong(utf8.length);
            out.put(utf8);
        } else if (value instanceof byte[] bytes) {
            out.put(BYTES);
            out.putVarLong(bytes.length);
            out.put(bytes);
        } else if (value instanceof List<?> list) {
            out.put(LIST);
            out.putVarLong(list.size());
            for (Object element : list) {
                write(out, element);
            }
        } else if (value instanceof Map<?, ?> map) {
            out.put(MAP);
            out.putVarLong(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                write(out, e.getKey());
                write(out, e.getValue());
            }
        } else if (value instanceof UUID uuid) {
            out.put(UUID_TAG);
            out.putLong(uuid.getMostSignificantBits());
            out.putLong(uuid.getLeastSignificantBits());
        } else if (value instanceof Enum<?> e) {
            out.put(ENUM);
            out.putVarLong(typeId(e.getDeclaringClass()));
            out.putVarLong(e.ordinal());
        } else if (value.getClass().isRecord()) {
            out.put(RECORD);
            Class<?> type = value.getClass();
            out.putVarLong(typeId(type));
            for (MethodHandle accessor : shapes.get(type).accessors()) {
                write(out, invokeAccessor(accessor, value));
            }
        } else {
            throw new IllegalArgumentException("cannot encode a " + value.getClass().getName());
        }
    }

    private int typeId(Class<?> type) {
        Integer id = typeIds.get(type);
        if (id == null) {
            throw new IllegalArgumentException(type.getName() + " is not registered with the codec");
        }
        return id;
    }

    private static Object invokeAccessor(MethodHandle accessor, Object record) {
        try {
            return accessor.invoke(record);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    // ---- decoding ----

    /** Decodes one value that must fill {@code bytes} exactly. */
    public Object decode(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes));
    }

    /** Decodes one value that must fill the buffer's remaining bytes exactly; advances its position. */
    public Object decode(ByteBuffer in) {
        try {
            Object value = read(in, 0);
            if (in.hasRemaining()) {
                throw new MalformedDataException(in.remaining() + " bytes left after the value");
            }
            return value;
        } catch (java.nio.BufferUnderflowException e) {
            throw new MalformedDataException("truncated input");
        }
    }

    /** Decodes and checks the value's type. */
    public <T> T decode(byte[] bytes, Class<T> type) {
        Object value = decode(bytes);
        if (!type.isInstance(value)) {
            throw new MalformedDataException("expected a " + type.getSimpleName() + ", got "
                    + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        return type.cast(value);
    }

    private Object read(ByteBuffer in, int depth) {
        if (depth > MAX_DEPTH) {
            throw new MalformedDataException("nested deeper than " + MAX_DEPTH);
        }
        byte tag = in.get();
        switch (tag) {
            case NULL:
                return null;
            case LONG:
                return readVarLong(in);
            case INT: {
                long value = readVarLong(in);
                if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
                    throw new MalformedDataException("int value " + value + " out of range");
                }
                return (int) value;
            }
            case BOOLEAN:
                return in.get() != 0;
            case STRING:
                return new String(readBytes(in), StandardCharsets.UTF_8);
            case BYTES:
                return readBytes(in);
            case LIST: {
                int size = readLength(in);
                List<Object> list = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    list.add(read(in, depth + 1));
                }
                return list;
            }
            case MAP: {
                int size = readLength(in);
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < size; i++) {
                    Object key = read(in, depth + 1);
                    map.put(key, read(in, depth + 1));
                }
                return map;
            }
            case UUID_TAG:
                return new UUID(in.getLong(), in.getLong());
            case ENUM: {
                Class<?> type = registered(in);
                Object[] constants = type.getEnumConstants();
                if (constants == null) {
                    throw new MalformedDataException(type.getSimpleName() + " is not an enum");
                }
                long ordinal = readVarLong(in);
                if (ordinal < 0 || ordinal >= constants.length) {
                    throw new MalformedDataException("no constant " + ordinal + " in " + type.getSimpleName());
                }
                return constants[(int) ordinal];
            }
            case RECORD:
                return readRecord(in, depth);
            default:
                throw new MalformedDataException("unknown tag " + tag);
        }
    }

    private Object readRecord(ByteBuffer in, int depth) {
        Class<?> type = registered(in);
        RecordShape shape = shapes.get(type);
        if (shape == null) {
            throw new MalformedDataException(type.getSimpleName() + " is not a record");
        }
        Object[] args = new Object[shape.accessors().length];
        for (int i = 0; i < args.length; i++) {
            args[i] = read(in, depth + 1);
            // Erasure lets a List<Long> component take a list of anything; an element of the wrong type
            // would otherwise surface as a ClassCastException wherever the record is used (on every replica
            // applying the command).
            if (shape.componentTypes()[i] instanceof ParameterizedType declared && !conforms(args[i], declared)) {
                throw new MalformedDataException("bad " + type.getSimpleName() + ": component " + i
                        + " does not hold a " + declared.getTypeName());
            }
        }
        try {
            return shape.constructor().invoke(args);
        } catch (ClassCastException | NullPointerException | IllegalArgumentException e) {
            // Wrong component types (ClassCastException from the spreader, NPE on unboxing null) or
            // a value the record's own validation rejects.
            throw new MalformedDataException("bad " + type.getSimpleName() + ": " + e.getMessage());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Whether a decoded value fits a declared component type, list elements and map entries included.
     * Nulls fit (the record's constructor rejects those it must); type variables and wildcards are not
     * checked (the registered records use neither).
     */
    private static boolean conforms(Object value, Type declared) {
        if (value == null) {
            return true;
        }
        if (declared instanceof Class<?> c) {
            return c.isPrimitive() || c.isInstance(value);
        }
        if (!(declared instanceof ParameterizedType p)) {
            return true;
        }
        if (!(p.getRawType() instanceof Class<?> raw) || !raw.isInstance(value)) {
            return false;
        }
        Type[] args = p.getActualTypeArguments();
        if (value instanceof List<?> list && args.length == 1) {
            for (Object element : list) {
                if (!conforms(element, args[0])) {
                    return false;
                }
            }
        } else if (value instanceof Map<?, ?> map && args.length == 2) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!conforms(e.getKey(), args[0]) || !conforms(e.getValue(), args[1])) {
                    return false;
                }
            }
        }
        return true;
    }

    private Class<?> registered(ByteBuffer in) {
        long id = readVarLong(in);
        if (id < 0 || id >= types.size()) {
            throw new MalformedDataException("unknown type id " + id);
        }
        return types.get((int) id);
    }

    private static byte[] readBytes(ByteBuffer in) {
        byte[] bytes = new byte[readLength(in)];
        in.get(bytes);
        return bytes;
    }

    /** A length that cannot exceed the bytes left (every element takes at least one byte). */
    private static int readLength(ByteBuffer in) {
        long length = readVarLong(in);
        if (length < 0 || length > in.remaining()) {
            throw new MalformedDataException("length " + length + " exceeds the " + in.remaining() + " bytes left");
        }
        return (int) length;
    }

    /** Zig-zag varint, so small negative numbers (the -1 sentinels) stay one byte. */
    private static long readVarLong(ByteBuffer in) {
        long raw = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.get();
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new MalformedDataException("varint longer than 10 bytes");
    }

    /** A byte sink that doubles as it fills. */
    private static final class GrowableBuffer {
        private byte[] bytes;
        private int size;

        GrowableBuffer(int initial) {
            bytes = new byte[initial];
        }

        private void ensure(int more) {
            if (size + more > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }

        void put(byte b) {
            ensure(1);
            bytes[size++] = b;
        }

        void put(byte[] src) {
            ensure(src.length);
            System.arraycopy(src, 0, bytes, size, src.length);
            size += src.length;
        }

        void putLong(long v) {
            ensure(8);
            for (int i = 7; i >= 0; i--) {
                bytes[size++] = (byte) (v >>> (i * 8));
            }
        }

        void putVarLong(long v) {
            long zigzag = (v << 1) ^ (v >> 63);
            ensure(10);
            while ((zigzag & ~0x7fL) != 0) {
                bytes[size++] = (byte) ((zigzag & 0x7f) | 0x80);
                zigzag >>>= 7;
            }
            bytes[size++] = (byte) zigzag;
        }

        byte[] toByteArray() {
            return java.util.Arrays.copyOf(bytes, size);
        }
    }
}
