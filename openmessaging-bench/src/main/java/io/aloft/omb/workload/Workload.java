package io.aloft.omb.workload;

/**
 * One OpenMessaging Benchmark workload, with OMB's field names and meanings.
 *
 * <p>Contract stub: parsing and validation are still to be written.
 */
public record Workload(
        String name,
        int topics,
        int partitionsPerTopic,
        int messageSize,
        String payloadFile,
        int subscriptionsPerTopic,
        int consumerPerSubscription,
        int producersPerTopic,
        int producerRate,
        long consumerBacklogSizeGB,
        double backlogDrainRatio,
        double testDurationMinutes,
        double warmupDurationMinutes,
        String keyDistributor) {
}
