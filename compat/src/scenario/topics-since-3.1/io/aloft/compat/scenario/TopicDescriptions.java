package io.aloft.compat.scenario;

import java.util.Collections;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Admin {@code describeTopics} for kafka-clients 3.1 and later, read with {@code allTopicNames()}
 * (which replaced {@code all()}, removed in 4.0). The harness compiles this file or its twin in
 * {@code topics-before-3.1} with the scenario, by the client's version.
 *
 * <p>Stateless.
 */
final class TopicDescriptions {
    private TopicDescriptions() {
    }

    static TopicDescription describe(Admin admin, String topic, long timeoutSeconds)
            throws InterruptedException, ExecutionException, TimeoutException {
        return admin.describeTopics(Collections.singleton(topic)).allTopicNames()
                .get(timeoutSeconds, TimeUnit.SECONDS).get(topic);
    }
}
