package io.aloft.omb.runner;

import io.aloft.omb.workload.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * Which client (and thread) serves which topics. Immutable.
 *
 * <p>OMB gives every logical producer ({@code producersPerTopic} per topic) and every logical
 * consumer ({@code consumerPerSubscription} per subscription per topic) its own client. Up to
 * {@code maxClients} of each, this layout does the same. Beyond that (100 or 1000 topics on a
 * two-core machine, where a thousand producers and a thousand consumers would measure the client
 * JVM rather than the broker), logical producers are dealt round-robin onto {@code maxClients}
 * producer clients, each sending to its topics in turn at the matching share of the rate; and
 * topics are dealt onto consumer slots, each slot read by one group per subscription with
 * {@code consumerPerSubscription} members. Either way every topic is read once per subscription,
 * and each group id is used for one slot only.
 */
final class ClientLayout {
    /** One producer client: the topic index of each logical producer it serves, and its rate. */
    record ProducerPlan(List<Integer> topicIndexes, double ratePerSecond) {
    }

    /** One consumer client: its group and the topic index of each topic it subscribes to. */
    record ConsumerPlan(String groupId, List<Integer> topicIndexes) {
    }

    private final List<ProducerPlan> producers;
    private final List<ConsumerPlan> consumers;

    private ClientLayout(List<ProducerPlan> producers, List<ConsumerPlan> consumers) {
        this.producers = List.copyOf(producers);
        this.consumers = List.copyOf(consumers);
    }

    static ClientLayout of(Workload w, int maxClients, String groupPrefix) {
        if (maxClients < 1) {
            throw new IllegalArgumentException("maxClients must be at least 1, got " + maxClients);
        }
        int logicalProducers = w.topics() * w.producersPerTopic();
        int producerClients = Math.min(logicalProducers, maxClients);
        List<List<Integer>> served = new ArrayList<>();
        for (int i = 0; i < producerClients; i++) {
            served.add(new ArrayList<>());
        }
        for (int p = 0; p < logicalProducers; p++) {
            served.get(p % producerClients).add(p / w.producersPerTopic());
        }
        List<ProducerPlan> producers = new ArrayList<>();
        for (List<Integer> topics : served) {
            double rate = (double) w.producerRate() * topics.size() / logicalProducers;
            producers.add(new ProducerPlan(topics, rate));
        }

        List<ConsumerPlan> consumers = new ArrayList<>();
        int perSlot = w.subscriptionsPerTopic() * w.consumerPerSubscription();
        if (perSlot > 0) {
            int slots = Math.min(w.topics(), Math.max(1, maxClients / perSlot));
            for (int s = 0; s < w.subscriptionsPerTopic(); s++) {
                for (int slot = 0; slot < slots; slot++) {
                    List<Integer> topics = new ArrayList<>();
                    for (int t = slot; t < w.topics(); t += slots) {
                        topics.add(t);
                    }
                    String group = groupPrefix + "-sub" + s + "-" + slot;
                    for (int c = 0; c < w.consumerPerSubscription(); c++) {
                        consumers.add(new ConsumerPlan(group, topics));
                    }
                }
            }
        }
        return new ClientLayout(producers, consumers);
    }

    List<ProducerPlan> producers() {
        return producers;
    }

    List<ConsumerPlan> consumers() {
        return consumers;
    }
}
