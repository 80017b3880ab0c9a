package io.aloft.controller.codec;

import io.aloft.controller.model.FeatureLevel;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The explicit wire schema of one enum: each constant has a code (written as a varint) and a name
 * of its own, never Java's ordinal or constant name, so constants can be reordered or renamed in
 * Java without changing a byte. An unknown code is malformed. A constant added later carries the
 * feature level it needs: writing it for a lower level fails (it cannot be represented).
 *
 * <p>In a tagged position an enum value is its type id, then its code (enums have no versions).
 *
 * <p>Immutable and thread-safe once built.
 *
 * @param <E> the enum type
 */
public final class EnumSchema<E extends Enum<E>> {
    private final int typeId;
    private final String name;
    private final Class<E> type;
    private final Map<E, Constant<E>> byConstant;
    private final Map<Integer, Constant<E>> byCode;

    /** One constant's code, wire name and feature level. */
    record Constant<E>(int code, String name, E constant, int level) {
    }

    private EnumSchema(Builder<E> b) {
        this.typeId = b.typeId;
        this.name = b.name;
        this.type = b.type;
        this.byConstant = new EnumMap<>(b.byConstant);
        this.byCode = new TreeMap<>(b.byCode);
    }

    public static <E extends Enum<E>> Builder<E> builder(int typeId, String name, Class<E> type) {
        return new Builder<>(typeId, name, type);
    }

    public int typeId() {
        return typeId;
    }

    public String name() {
        return name;
    }

    public Class<E> type() {
        return type;
    }

    /** The constant's code. */
    public int code(E constant) {
        return byConstant.get(constant).code();
    }

    /** The feature level the constant needs. */
    public int levelOf(E constant) {
        return byConstant.get(constant).level();
    }

    /** The highest feature level any constant needs. */
    int maxLevel() {
        return byConstant.values().stream().mapToInt(Constant::level).max().orElse(FeatureLevel.INITIAL);
    }

    String nameOf(E constant) {
        return byConstant.get(constant).name();
    }

    @SuppressWarnings("unchecked")
    String nameOfUnchecked(Enum<?> constant) {
        return nameOf((E) constant);
    }

    void write(WireWriter out, E constant) {
        Constant<E> c = byConstant.get(constant);
        if (c.level() > out.level()) {
            throw new IllegalArgumentException(name + "." + c.name() + " needs feature level " + c.level()
                    + "; writing for level " + out.level());
        }
        out.met(c.level());
        out.putVarLong(c.code());
    }

    @SuppressWarnings("unchecked")
    void writeUnchecked(WireWriter out, Enum<?> constant) {
        write(out, (E) constant);
    }

    E read(WireReader in) {
        long code = in.getVarLong();
        Constant<E> c = code < Integer.MIN_VALUE || code > Integer.MAX_VALUE ? null : byCode.get((int) code);
        if (c == null) {
            throw new MalformedDataException("no constant with code " + code + " in " + name);
        }
        in.met(c.level());
        return c.constant();
    }

    @Override
    public String toString() {
        return name + " (type id " + typeId + ", " + byCode.size() + " constants)";
    }

    /** Declares a schema; {@link #build} checks that every Java constant has a code. Not thread-safe. */
    public static final class Builder<E extends Enum<E>> {
        private final int typeId;
        private final String name;
        private final Class<E> type;
        private final Map<E, Constant<E>> byConstant;
        private final Map<Integer, Constant<E>> byCode = new TreeMap<>();

        private Builder(int typeId, String name, Class<E> type) {
            this.typeId = typeId;
            this.name = Objects.requireNonNull(name, "name");
            this.type = Objects.requireNonNull(type, "type");
            this.byConstant = new EnumMap<>(type);
        }

        /** A constant present since feature level {@link FeatureLevel#INITIAL}. */
        public Builder<E> constant(int code, String constantName, E constant) {
            return constant(code, constantName, constant, FeatureLevel.INITIAL);
        }

        /** A constant that needs {@code level}. */
        public Builder<E> constant(int code, String constantName, E constant, int level) {
            Constant<E> c = new Constant<>(code, constantName, constant, level);
            if (code < 0 || byCode.putIfAbsent(code, c) != null) {
                throw new IllegalArgumentException(name + ": code " + code + " is negative or used twice");
            }
            if (byConstant.putIfAbsent(constant, c) != null) {
                throw new IllegalArgumentException(name + ": " + constant + " declared twice");
            }
            if (byCode.values().stream().filter(o -> o.name().equals(constantName)).count() > 1) {
                throw new IllegalArgumentException(name + ": name " + constantName + " used twice");
            }
            return this;
        }

        public EnumSchema<E> build() {
            for (E constant : type.getEnumConstants()) {
                if (!byConstant.containsKey(constant)) {
                    throw new IllegalStateException(name + ": " + type.getName() + "." + constant + " has no code");
                }
            }
            return new EnumSchema<>(this);
        }
    }
}
