package io.aloft.broker.security.acl;

import java.util.Collection;
import org.apache.kafka.common.acl.AclBinding;

/** Builds an {@link Authorizer} over fixed ACLs for tests outside this package. */
public final class AuthorizerAccess {
    private AuthorizerAccess() {
    }

    public static Authorizer of(AuthorizerConfig config, Collection<AclBinding> bindings) {
        return Authorizer.of(config, bindings);
    }
}
