package io.aloft.omb.compare;

import io.aloft.omb.workload.Workload;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Replaces fields of a loaded {@link Workload} by OMB field name: how {@code compare} sets the
 * latency workload's rate from Kafka's measured maximum, and how {@code --quick} shortens runs.
 * Works from the record's components, so fields added to {@code Workload} are covered without
 * changes here. Stateless.
 */
public final class WorkloadOverrides {
    private WorkloadOverrides() {
    }

    /**
     * A copy of {@code workload} with the given fields replaced.
     *
     * @throws IllegalArgumentException naming the field if it does not exist or the value does not parse
     */
    public static Workload apply(Workload workload, Map<String, String> overrides) {
        RecordComponent[] components = Workload.class.getRecordComponents();
        for (String key : overrides.keySet()) {
            check(key);
        }
        Object[] values = new Object[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                RecordComponent c = components[i];
                String override = overrides.get(c.getName());
                values[i] = override == null ? c.getAccessor().invoke(workload) : parse(c, override);
            }
            Constructor<Workload> constructor = Workload.class.getDeclaredConstructor(
                    Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
            return constructor.newInstance(values);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException("workload override " + overrides + ": " + e.getCause().getMessage(),
                    e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Workload is expected to be a public record", e);
        }
    }

    /** Fails, naming {@code key}, unless it is a field of {@link Workload}. */
    static void check(String key) {
        boolean known = Arrays.stream(Workload.class.getRecordComponents()).anyMatch(c -> c.getName().equals(key));
        if (!known) {
            throw new IllegalArgumentException("'" + key + "' is not a workload field; fields: "
                    + Arrays.stream(Workload.class.getRecordComponents()).map(RecordComponent::getName)
                    .collect(Collectors.joining(", ")));
        }
    }

    private static Object parse(RecordComponent c, String value) {
        Class<?> type = c.getType();
        try {
            if (type == int.class || type == Integer.class) {
                return Integer.parseInt(value.trim());
            } else if (type == long.class || type == Long.class) {
                return Long.parseLong(value.trim());
            } else if (type == double.class || type == Double.class) {
                return Double.parseDouble(value.trim());
            } else if (type == boolean.class || type == Boolean.class) {
                return Boolean.parseBoolean(value.trim());
            } else if (type == String.class) {
                return value;
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(c.getName() + ": '" + value + "' is not a " + type.getSimpleName(), e);
        }
        throw new IllegalArgumentException(c.getName() + ": a " + type.getSimpleName() + " cannot be overridden");
    }
}
