package io.aloft.compat.scenario;

import java.util.Collections;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Admin {@code describeTopics} for kafka-clients before 3.1, whose result is read with {@code all()}
 * ({@code allTopicNames()} replaced it in 3.1 and 4.0 removed it). The harness compiles this file or
 * its twin in {@code topics-since-3.1} with the scenario, by the client's version.
 *
 * <p>Stateless.
 */
final class TopicDescriptions {
    private TopicDescriptions() {
    }

    static TopicDescription describe(Admin admin, String topic, long timeoutSeconds)
            throws InterruptedException, ExecutionException, TimeoutException {
        return admin.describeTopics(Collections.singleton(topic)).all().get(timeoutSeconds, TimeUnit.SECONDS)
                .get(topic);
    }
}
