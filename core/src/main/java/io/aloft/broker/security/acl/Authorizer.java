package io.aloft.broker.security.acl;

import io.aloft.broker.security.Principal;
import io.aloft.broker.security.SecurityMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's ACL model over the ACLs the controller keeps under {@link AclKeys#PREFIX}. A request is
 * allowed when its principal is a super user, or no DENY entry and at least one ALLOW entry apply;
 * an entry applies when its pattern matches the resource (literal name, literal '*', or a prefix of
 * the name), its principal is the request's or {@code User:*}, its host is the client's address
 * or '*', and its operation is the requested one or ALL. Deny beats allow. An ALLOW for READ, WRITE,
 * DELETE or ALTER also allows DESCRIBE, and ALTER_CONFIGS allows DESCRIBE_CONFIGS (Kafka's
 * implications; a DENY implies nothing). A resource no entry of any principal matches is allowed
 * only with {@code allow.everyone.if.no.acl.found}.
 *
 * <p>Thread-safe: the index is immutable and swapped through a volatile field by the security
 * metadata's listener (the metadata watcher thread); checks run on any handler thread and read one
 * index per check.
 */
public final class Authorizer {
    private static final Logger log = LoggerFactory.getLogger(Authorizer.class);
    /** Kafka's one cluster resource name ({@code kafka-cluster}). */
    public static final String CLUSTER_NAME = "kafka-cluster";
    static final String WILDCARD_PRINCIPAL = "User:*";
    static final String WILDCARD_HOST = "*";

    private final Set<Principal> superUsers;
    private final boolean allowIfNoAcl;
    private final SecurityMetadata metadata;
    private volatile AclIndex index = AclIndex.EMPTY;

    /** Starts following the ACLs in {@code metadata}. */
    public Authorizer(AuthorizerConfig config, SecurityMetadata metadata) {
        this.superUsers = config.superUsers();
        this.allowIfNoAcl = config.allowEveryoneIfNoAclFound();
        this.metadata = metadata;
        metadata.subscribe(AclKeys.PREFIX, this::rebuild);
    }

    /** An authorizer over fixed {@code bindings}, following no metadata (tests of the rules). */
    static Authorizer of(AuthorizerConfig config, java.util.Collection<AclBinding> bindings) {
        Authorizer a = new Authorizer(config);
        a.index = new AclIndex(bindings);
        return a;
    }

    private Authorizer(AuthorizerConfig config) {
        this.superUsers = config.superUsers();
        this.allowIfNoAcl = config.allowEveryoneIfNoAclFound();
        this.metadata = null;
    }

    private void rebuild(SortedMap<String, byte[]> entries) {
        List<AclBinding> bindings = new ArrayList<>(entries.size());
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            try {
                bindings.add(AclKeys.binding(e.getKey(), e.getValue()));
            } catch (IllegalArgumentException bad) {
                // A newer broker's format: skipping it can only deny more (an unreadable ALLOW), except
                // for an unreadable DENY, which is why formats only ever grow compatibly.
                log.warn("Skipping ACL entry this broker cannot read: {}", bad.getMessage());
            }
        }
        index = new AclIndex(bindings);
    }

    /** Whether {@code principal} connecting from {@code host} may do {@code op} on resource {@code name}. */
    public boolean authorize(Principal principal, String host, AclOperation op, ResourceType type, String name) {
        if (superUsers.contains(principal)) {
            return true;
        }
        List<AccessControlEntry> entries = index.matching(type, name);
        if (entries.isEmpty()) {
            return allowIfNoAcl;
        }
        String who = principal.toString();
        boolean allowed = false;
        for (AccessControlEntry e : entries) {
            if (!applies(e, who, host)) {
                continue;
            }
            if (e.permissionType() == AclPermissionType.DENY) {
                if (e.operation() == op || e.operation() == AclOperation.ALL) {
                    return false;
                }
            } else if (allows(e.operation(), op)) {
                allowed = true;
            }
        }
        return allowed;
    }

    /**
     * Whether {@code principal} may do {@code op} on at least one resource of {@code type}, as
     * Kafka's authorizeByResourceType (KIP-679; an idempotent producer's InitProducerId needs WRITE
     * on some topic): some ALLOW entry (op or ALL) applies whose pattern no applying DENY (op or ALL)
     * covers; a DENY on the literal '*' covers everything, a DENY prefix covers the names and
     * prefixes it starts, a literal DENY its own name. No entry of that type at all: as
     * {@code allow.everyone.if.no.acl.found}.
     */
    public boolean authorizeAny(Principal principal, String host, AclOperation op, ResourceType type) {
        if (superUsers.contains(principal)) {
            return true;
        }
        List<AclBinding> ofType = index.ofType(type);
        if (ofType.isEmpty()) {
            return allowIfNoAcl;
        }
        String who = principal.toString();
        List<ResourcePattern> denied = new ArrayList<>();
        List<ResourcePattern> allowed = new ArrayList<>();
        for (AclBinding b : ofType) {
            AccessControlEntry e = b.entry();
            if (!applies(e, who, host) || (e.operation() != op && e.operation() != AclOperation.ALL)) {
                continue;
            }
            (e.permissionType() == AclPermissionType.DENY ? denied : allowed).add(b.pattern());
        }
        for (ResourcePattern allow : allowed) {
            if (denied.stream().noneMatch(deny -> covers(deny, allow))) {
                return true;
            }
        }
        return false;
    }

    private static boolean covers(ResourcePattern deny, ResourcePattern allow) {
        if (deny.patternType() == PatternType.LITERAL) {
            return deny.name().equals(ResourcePattern.WILDCARD_RESOURCE)
                    || (allow.patternType() == PatternType.LITERAL && deny.name().equals(allow.name()));
        }
        return allow.name().startsWith(deny.name());
    }

    private static boolean applies(AccessControlEntry e, String principal, String host) {
        return (e.principal().equals(principal) || e.principal().equals(WILDCARD_PRINCIPAL))
                && (e.host().equals(host) || e.host().equals(WILDCARD_HOST));
    }

    /** Whether an ALLOW of {@code granted} allows {@code requested}, with Kafka's implications. */
    static boolean allows(AclOperation granted, AclOperation requested) {
        if (granted == requested || granted == AclOperation.ALL) {
            return true;
        }
        return switch (requested) {
            case DESCRIBE -> granted == AclOperation.READ || granted == AclOperation.WRITE
                    || granted == AclOperation.DELETE || granted == AclOperation.ALTER;
            case DESCRIBE_CONFIGS -> granted == AclOperation.ALTER_CONFIGS;
            default -> false;
        };
    }

    /** The bindings {@code filter} matches (DescribeAcls, DeleteAcls). */
    public List<AclBinding> bindings(AclBindingFilter filter) {
        return index.bindings().stream().filter(filter::matches).toList();
    }

    /** Stores {@code bindings} (concrete ones) in the controller; completes once this broker sees them. */
    public CompletableFuture<Void> create(List<AclBinding> bindings) {
        return metadata.apply(bindings.stream()
                .map(b -> SecurityMetadata.Change.put(AclKeys.key(b), AclKeys.VALUE)).toList());
    }

    /** Removes {@code bindings} from the controller; completes once this broker no longer sees them. */
    public CompletableFuture<Void> delete(List<AclBinding> bindings) {
        return metadata.apply(bindings.stream().map(b -> SecurityMetadata.Change.delete(AclKeys.key(b))).toList());
    }
}
