package io.aloft.omb.workload;

import java.util.Properties;

/**
 * An OMB Kafka driver file: client properties for producers, consumers and topics.
 *
 * <p>Contract stub: parsing is still to be written.
 */
public record DriverConfig(String name, int replicationFactor, Properties commonConfig, Properties producerConfig,
        Properties consumerConfig, Properties topicConfig) {
}
