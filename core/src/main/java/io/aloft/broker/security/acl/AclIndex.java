package io.aloft.broker.security.acl;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Every ACL binding, indexed for the authorizer's question "which entries apply to this resource":
 * per resource type, literal patterns by name (the wildcard '*' is the literal name "*"), and
 * prefixed patterns by prefix together with the set of prefix lengths in use, so a lookup tries
 * only those lengths (one hash lookup each; few distinct lengths in practice) instead of scanning.
 * Rebuilt whole when the ACLs change (they change rarely; authorization happens on every request).
 *
 * <p>Immutable.
 */
final class AclIndex {
    static final AclIndex EMPTY = new AclIndex(List.of());

    private final List<AclBinding> bindings;
    private final Map<ResourceType, Map<String, List<AccessControlEntry>>> literal = new EnumMap<>(ResourceType.class);
    private final Map<ResourceType, Map<String, List<AccessControlEntry>>> prefixed = new EnumMap<>(ResourceType.class);
    private final Map<ResourceType, int[]> prefixLengths = new EnumMap<>(ResourceType.class);

    AclIndex(Collection<AclBinding> all) {
        this.bindings = List.copyOf(all);
        Map<ResourceType, TreeSet<Integer>> lengths = new EnumMap<>(ResourceType.class);
        for (AclBinding b : bindings) {
            ResourcePattern p = b.pattern();
            Map<ResourceType, Map<String, List<AccessControlEntry>>> byType =
                    p.patternType() == PatternType.PREFIXED ? prefixed : literal;
            byType.computeIfAbsent(p.resourceType(), t -> new HashMap<>())
                    .computeIfAbsent(p.name(), n -> new ArrayList<>()).add(b.entry());
            if (p.patternType() == PatternType.PREFIXED) {
                lengths.computeIfAbsent(p.resourceType(), t -> new TreeSet<>()).add(p.name().length());
            }
        }
        lengths.forEach((type, set) -> prefixLengths.put(type, set.stream().mapToInt(Integer::intValue).toArray()));
    }

    /** All bindings, in no particular order. */
    List<AclBinding> bindings() {
        return bindings;
    }

    boolean isEmpty() {
        return bindings.isEmpty();
    }

    /**
     * The entries of every pattern matching resource {@code name} of {@code type}: the literal name,
     * the literal wildcard, and each prefix of the name.
     */
    List<AccessControlEntry> matching(ResourceType type, String name) {
        List<AccessControlEntry> out = new ArrayList<>();
        Map<String, List<AccessControlEntry>> lit = literal.get(type);
        if (lit != null) {
            addAll(out, lit.get(name));
            if (!name.equals(ResourcePattern.WILDCARD_RESOURCE)) {
                addAll(out, lit.get(ResourcePattern.WILDCARD_RESOURCE));
            }
        }
        int[] lens = prefixLengths.get(type);
        if (lens != null) {
            Map<String, List<AccessControlEntry>> pre = prefixed.get(type);
            for (int len : lens) {
                if (len > name.length()) {
                    break;
                }
                addAll(out, pre.get(name.substring(0, len)));
            }
        }
        return out;
    }

    /** The bindings on resources of {@code type} (for "may do this on some resource of the type"). */
    List<AclBinding> ofType(ResourceType type) {
        return bindings.stream().filter(b -> b.pattern().resourceType() == type).toList();
    }

    private static void addAll(List<AccessControlEntry> out, List<AccessControlEntry> entries) {
        if (entries != null) {
            out.addAll(entries);
        }
    }
}
