package io.aloft.broker.security.acl;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * How one ACL binding is stored in the controller's security metadata: entirely in its key, one key
 * per binding, so concurrent CreateAcls calls (on any brokers) never overwrite each other and
 * creating a binding twice is one binding:
 *
 * <pre>
 * security/acl/&lt;resource type&gt;/&lt;pattern type&gt;/&lt;name&gt;/&lt;principal&gt;/&lt;host&gt;/&lt;operation&gt;
 *     /&lt;permission&gt;   (one line; broken here to fit)
 * e.g. security/acl/topic/prefixed/orders-/User%3Aalice/*&#47;read/allow
 * </pre>
 *
 * The enum parts are Kafka's names in lower case (never ordinals or ids); the resource name,
 * principal and host are URL-encoded (UTF-8), since group ids, transactional ids and principals may
 * contain '/'. The value is one byte, the format version {@value #FORMAT_VERSION}, room for a
 * later format to carry more. Immutable (static methods only).
 */
public final class AclKeys {
    public static final String PREFIX = "security/acl/";
    static final byte FORMAT_VERSION = 1;
    static final byte[] VALUE = {FORMAT_VERSION};

    private AclKeys() {
    }

    /** The key of {@code binding}, which must be a concrete one (no ANY/MATCH/UNKNOWN parts). */
    public static String key(AclBinding binding) {
        ResourcePattern p = binding.pattern();
        AccessControlEntry e = binding.entry();
        return PREFIX + name(p.resourceType()) + '/' + name(p.patternType()) + '/' + encode(p.name()) + '/'
                + encode(e.principal()) + '/' + encode(e.host()) + '/' + name(e.operation()) + '/'
                + name(e.permissionType());
    }

    /**
     * The binding stored under {@code key} with {@code value}.
     *
     * @throws IllegalArgumentException if the key or the value's format is not one this version writes
     */
    public static AclBinding binding(String key, byte[] value) {
        if (value.length < 1 || value[0] != FORMAT_VERSION) {
            throw new IllegalArgumentException("ACL " + key + ": unknown format " + (value.length == 0 ? "(empty)"
                    : Byte.toString(value[0])));
        }
        if (!key.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not an ACL key: " + key);
        }
        String[] parts = key.substring(PREFIX.length()).split("/", -1);
        if (parts.length != 7) {
            throw new IllegalArgumentException("ACL key with " + parts.length + " parts: " + key);
        }
        return new AclBinding(
                new ResourcePattern(ResourceType.valueOf(upper(parts[0])), decode(parts[2]),
                        PatternType.valueOf(upper(parts[1]))),
                new AccessControlEntry(decode(parts[3]), decode(parts[4]), AclOperation.valueOf(upper(parts[5])),
                        AclPermissionType.valueOf(upper(parts[6]))));
    }

    private static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static String upper(String s) {
        return s.toUpperCase(Locale.ROOT);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
