package io.aloft.broker.security;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.model.FeatureLevel;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

class SecurityMetadataTest {

    @Test
    void writesAreRefusedBelowTheSecurityLevel_namingTheLevel() {
        SecurityMetadata security = new SecurityMetadata(null, () -> FeatureLevel.RACK_AWARE_PLACEMENT);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> security.put("security/acl/x", new byte[0]).get());
        assertInstanceOf(UnsupportedVersionException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("level " + FeatureLevel.SECURITY_METADATA), e.getMessage());
    }

    @Test
    void onlySecurityKeysCanBeChanged() {
        assertThrows(IllegalArgumentException.class, () -> SecurityMetadata.Change.put("config/x", new byte[0]));
    }
}
