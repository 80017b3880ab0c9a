package io.aloft.broker.interbroker;

import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.Endpoint;
import org.apache.kafka.common.Node;

/**
 * Where another broker listens for requests from brokers: its registered endpoint of the
 * inter-broker listener. Implementations are thread-safe.
 */
@FunctionalInterface
public interface BrokerAddresses {

    /** Broker {@code brokerId}'s address, or null if it is not known (not registered, or no such listener). */
    Node address(int brokerId);

    /**
     * The brokers as the metadata cache knows them (their registrations, kept current by the
     * controller's change feed), reached on their endpoint named {@code listener}: Kafka's
     * {@code inter.broker.listener.name}, here the name of this broker's first advertised listener,
     * since every broker of a cluster is configured alike.
     */
    static BrokerAddresses fromCache(MetadataCache cache, String listener) {
        return brokerId -> {
            BrokerInfo b = cache.view().brokers().get(brokerId);
            if (b == null) {
                return null;
            }
            for (Endpoint e : b.endpoints()) {
                if (e.listener().equals(listener)) {
                    return new Node(brokerId, e.host(), e.port());
                }
            }
            return null;
        };
    }
}
