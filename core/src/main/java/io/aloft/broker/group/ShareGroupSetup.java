package io.aloft.broker.group;

import io.aloft.broker.share.ShareGroupConfig;
import io.aloft.broker.share.ShareGroupListener;
import io.aloft.broker.share.ShareGroupSettingsSource;
import io.aloft.broker.share.state.ShareStatePersister;
import java.util.Objects;

/**
 * What the group coordinator's share groups (KIP-932) work with: the broker's share settings, each
 * group's own settings (session timeout, heartbeat interval), where share partitions' state is kept
 * (initialized when first assigned, deleted with the group), and who hears that a member is gone.
 * Immutable; the parts are thread-safe.
 *
 * @param persister null: share groups are not served (their records are still replayed)
 */
record ShareGroupSetup(ShareGroupConfig config, ShareGroupSettingsSource settings, ShareStatePersister persister,
                       ShareGroupListener listener) {

    /** Before share groups are enabled: records replay, nothing is served. */
    static final ShareGroupSetup DISABLED = new ShareGroupSetup(ShareGroupConfig.defaults(),
            ShareGroupSettingsSource.fixed(ShareGroupConfig.defaults().brokerDefaults()), null, ShareGroupListener.NONE);

    ShareGroupSetup {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(listener, "listener");
    }
}
