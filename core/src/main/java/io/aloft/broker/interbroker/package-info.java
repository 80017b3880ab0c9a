/**
 * Requests from this broker to other brokers, as Kafka's brokers send them to each other:
 * {@link io.aloft.broker.interbroker.InterBrokerClient} (send a request builder to a broker id, get
 * its response), implemented on kafka-clients' NetworkClient by
 * {@link io.aloft.broker.interbroker.NetworkInterBrokerClient}, with the brokers' addresses from the
 * metadata cache ({@link io.aloft.broker.interbroker.BrokerAddresses}). Used for transaction markers
 * (WriteTxnMarkers from a transaction coordinator to partition leaders) and the group lag meter
 * (ListOffsets from a group coordinator to partition leaders); the client knows nothing of what it
 * carries, and retrying is its callers' business. Its connections are secured as the inter-broker
 * listener is ({@link io.aloft.broker.interbroker.InterBrokerSecurity}: TLS with the listener's
 * keys, SASL with the credentials of its JAAS key), through kafka-clients' own channels.
 */
package io.aloft.broker.interbroker;
