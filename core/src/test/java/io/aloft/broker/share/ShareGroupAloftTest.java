package io.aloft.broker.share;

import io.aloft.broker.TestBroker;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share group scenarios against Aloft (a {@link TestBroker} with {@link
 * ShareGroupScenarios#BROKER_SETTINGS}): they pass against Apache Kafka 4.3.1 ({@link
 * ShareGroupKafkaOracleTest}), so they must pass here too.
 */
class ShareGroupAloftTest extends ShareGroupScenarios {
    @TempDir
    static Path dir;
    private static TestBroker broker;
    private static ShareTarget target;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, BROKER_SETTINGS);
        target = new ShareTarget("Aloft", broker.bootstrap());
    }

    @AfterAll
    static void stop() {
        if (target != null) {
            target.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Override
    ShareTarget target() {
        return target;
    }

    @Override
    void restartBroker() throws Exception {
        target.close();
        broker.close();
        broker = broker.restart(); // a new client port
        target = new ShareTarget("Aloft", broker.bootstrap());
    }
}
