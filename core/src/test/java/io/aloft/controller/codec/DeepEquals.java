package io.aloft.controller.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Assertions over decoded values: equality that compares byte arrays by content, and declared types. */
final class DeepEquals {
    private DeepEquals() {
    }

    static void assertDeepEquals(Object expected, Object actual, String path) {
        if (expected instanceof byte[] e) {
            assertTrue(actual instanceof byte[] a && Arrays.equals(e, a), path);
        } else if (expected instanceof List<?> e) {
            List<?> a = (List<?>) actual;
            assertEquals(e.size(), a.size(), path);
            for (int i = 0; i < e.size(); i++) {
                assertDeepEquals(e.get(i), a.get(i), path + "[" + i + "]");
            }
        } else if (expected instanceof Map<?, ?> e) {
            Map<?, ?> a = (Map<?, ?>) actual;
            assertEquals(e.keySet(), a.keySet(), path);
            e.forEach((k, v) -> assertDeepEquals(v, a.get(k), path + "[" + k + "]"));
        } else if (expected != null && expected.getClass().isRecord()) {
            assertSame(expected.getClass(), actual.getClass(), path);
            for (RecordComponent c : expected.getClass().getRecordComponents()) {
                assertDeepEquals(component(c, expected), component(c, actual), path + "." + c.getName());
            }
        } else {
            assertEquals(expected, actual, path);
        }
    }

    /**
     * Whether every record component in {@code value} (recursively) holds what its declared type
     * says, list elements and map entries included: erasure would let a {@code List<Long>} hold a
     * string, which applying a command would then trip over on every replica.
     */
    static boolean conformsDeeply(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().allMatch(DeepEquals::conformsDeeply);
        }
        if (value instanceof Map<?, ?> map) {
            return map.values().stream().allMatch(DeepEquals::conformsDeeply);
        }
        if (value == null || !value.getClass().isRecord()) {
            return true;
        }
        for (RecordComponent c : value.getClass().getRecordComponents()) {
            Object v = component(c, value);
            if (!conforms(v, c.getGenericType()) || !conformsDeeply(v)) {
                return false;
            }
        }
        return true;
    }

    private static boolean conforms(Object value, Type declared) {
        if (value == null) {
            return true;
        }
        if (declared instanceof Class<?> c) {
            return c.isPrimitive() || c.isInstance(value);
        }
        if (!(declared instanceof ParameterizedType p) || !(p.getRawType() instanceof Class<?> raw)
                || !raw.isInstance(value)) {
            return false;
        }
        Type[] args = p.getActualTypeArguments();
        if (value instanceof List<?> list) {
            return list.stream().allMatch(e -> conforms(e, args[0]));
        }
        if (value instanceof Map<?, ?> map) {
            return map.entrySet().stream().allMatch(e -> conforms(e.getKey(), args[0])
                    && conforms(e.getValue(), args[1]));
        }
        return true;
    }

    private static Object component(RecordComponent c, Object record) {
        try {
            return c.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
