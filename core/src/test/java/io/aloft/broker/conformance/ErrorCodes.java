package io.aloft.broker.conformance;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;

/**
 * The error codes of a response, by where they sit: every {@code errorCode} (or {@code xxxErrorCode})
 * field of the message and of the elements of its arrays, keyed by a path that names each element by
 * what identifies it in the protocol (topic, partition, resource, group, coordinator key) rather than
 * by its position, so two brokers that list the same things in another order compare equal. Topic
 * ids are named through the caller's mapping (each cluster gives a topic its own id).
 *
 * <p>Topics the test did not make (names not starting with {@link #TEST_TOPIC_PREFIX}) are left out
 * of listings such as Metadata for all topics: the clusters differ in those (internal topics) by
 * construction.
 *
 * <p>Stateless.
 */
final class ErrorCodes {
    /** Every topic the conformance tests create or name starts with this. */
    static final String TEST_TOPIC_PREFIX = "conf-";

    /** Accessors naming a topic, in the order they are tried. */
    private static final List<String> TOPIC_KEYS = List.of("name", "topic", "topicName");
    /** Accessors naming another kind of element. */
    private static final List<String> OTHER_KEYS = List.of("resourceType", "resourceName", "groupId", "key",
            "partitionIndex", "partition", "index", "partitionId", "user");

    private ErrorCodes() {
    }

    /** Path to error name, e.g. {@code responses[topic=conf-data].partitionResponses[index=0].errorCode -> NONE}. */
    static SortedMap<String, String> of(Message message, Function<Uuid, String> topicNames) {
        SortedMap<String, String> out = new java.util.TreeMap<>();
        walk(message, "", topicNames, out);
        return out;
    }

    private static void walk(Message message, String path, Function<Uuid, String> topicNames,
            Map<String, String> out) {
        for (Method m : accessors(message.getClass())) {
            Object value = invoke(m, message);
            String name = m.getName();
            if (value instanceof Short code && (name.equals("errorCode") || name.endsWith("ErrorCode"))) {
                out.put(path + name, Errors.forCode(code).name());
            } else if (value instanceof Collection<?> elements) {
                Map<String, Integer> seen = new HashMap<>();
                int position = 0;
                for (Object e : elements) {
                    if (!(e instanceof Message child)) {
                        break;
                    }
                    String label = label(child, topicNames, position++);
                    if (label == null) {
                        continue; // a topic the test did not create
                    }
                    int n = seen.merge(label, 1, Integer::sum);
                    walk(child, path + name + "[" + label + (n > 1 ? "#" + n : "") + "].", topicNames, out);
                }
            } else if (value instanceof Message child) {
                walk(child, path + name + ".", topicNames, out);
            }
        }
    }

    /** How an array element is named in a path; null if it is a topic the test did not create. */
    private static String label(Message element, Function<Uuid, String> topicNames, int position) {
        List<String> parts = new ArrayList<>();
        Map<String, Method> byName = new HashMap<>();
        for (Method m : accessors(element.getClass())) {
            byName.put(m.getName(), m);
        }
        String topic = null;
        for (String key : TOPIC_KEYS) {
            Method m = byName.get(key);
            if (m != null && invoke(m, element) instanceof String s && !s.isEmpty()) {
                topic = s;
                break;
            }
        }
        Method idAccessor = byName.get("topicId");
        if (topic == null && idAccessor != null && invoke(idAccessor, element) instanceof Uuid id
                && !Uuid.ZERO_UUID.equals(id)) {
            topic = topicNames.apply(id);
        }
        if (topic != null) {
            if (!topic.startsWith(TEST_TOPIC_PREFIX) && byName.containsKey("partitions")) {
                return null; // a topic in a listing of all topics
            }
            parts.add("topic=" + topic);
        }
        for (String key : OTHER_KEYS) {
            Method m = byName.get(key);
            if (m != null) {
                Object v = invoke(m, element);
                if (v != null && !(v instanceof String s && s.isEmpty())) {
                    parts.add(key + "=" + v);
                }
            }
        }
        return parts.isEmpty() ? "#" + position : String.join(",", parts);
    }

    /** The public no-argument getters a generated message declares, in name order. */
    private static List<Method> accessors(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers())
                        && m.getParameterCount() == 0 && !m.isSynthetic() && !m.isBridge()
                        && m.getReturnType() != void.class
                        && !m.getName().equals("duplicate") && !m.getName().equals("unknownTaggedFields")
                        && !m.getName().equals("hashCode") && !m.getName().equals("toString"))
                .sorted(Comparator.comparing(Method::getName))
                .toList();
    }

    private static Object invoke(Method m, Object target) {
        try {
            return m.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + m, e);
        }
    }
}
