package io.aloft.broker.handler;

import io.aloft.broker.api.ApiHandler;
import io.aloft.broker.api.RequestContext;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.Endpoint;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBrokerCollection;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;

/**
 * DescribeCluster: the brokers on the request's listener (fenced ones only when asked, v2+).
 *
 * <p>Stateless; runs on the network thread.
 */
public final class DescribeClusterHandler implements ApiHandler<DescribeClusterRequest> {
    /** Kafka's endpoint type for brokers (the other, 2, asks for controller endpoints). */
    private static final byte BROKER_ENDPOINTS = 1;

    private final MetadataCache cache;
    private final String clusterId;
    private final IntSupplier controllerId;

    public DescribeClusterHandler(MetadataCache cache, String clusterId, IntSupplier controllerId) {
        this.cache = cache;
        this.clusterId = clusterId;
        this.controllerId = controllerId;
    }

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CLUSTER;
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, DescribeClusterRequest request) {
        DescribeClusterResponseData data = new DescribeClusterResponseData().setThrottleTimeMs(0)
                .setEndpointType(request.data().endpointType());
        if (request.data().endpointType() != BROKER_ENDPOINTS) {
            // Kafka's answer when a broker is asked for controller endpoints (KIP-919); here controllers
            // speak Raft, not the Kafka protocol, so no listener could give them either.
            data.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
                    .setErrorMessage("brokers give broker endpoints (type 1) only");
            return CompletableFuture.completedFuture(new DescribeClusterResponse(data));
        }
        DescribeClusterBrokerCollection brokers = new DescribeClusterBrokerCollection();
        for (BrokerInfo b : cache.view().brokers().values()) {
            boolean fenced = b.state() == BrokerState.FENCED;
            if (fenced && !request.data().includeFencedBrokers()) {
                continue;
            }
            for (Endpoint e : b.endpoints()) {
                if (e.listener().equals(context.listenerName())) {
                    brokers.add(new DescribeClusterBroker().setBrokerId(b.brokerId()).setHost(e.host())
                            .setPort(e.port()).setRack(b.rack()).setIsFenced(fenced));
                }
            }
        }
        data.setErrorCode(Errors.NONE.code()).setClusterId(clusterId).setControllerId(controllerId.getAsInt())
                .setBrokers(brokers);
        return CompletableFuture.completedFuture(new DescribeClusterResponse(data));
    }
}
