package io.aloft.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.aloft.broker.log.LogConfig;
import io.aloft.broker.log.LogFixture;
import io.aloft.broker.log.PartitionLog;
import io.aloft.broker.metadata.MetadataCache;
import io.aloft.broker.partition.PartitionManager;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator's log on a real partition: appends are fenced by the leader epoch of the last
 * replay, so state loaded before the partition moved away and back is never written into it.
 */
class PartitionCoordinatorLogTest {
    private static final int SELF = 1;
    private static final String TOPIC = "__coordinator_log_test";
    private static final UUID ID = new UUID(3, 3);

    /** Records are strings: the key is the value. */
    private static final CoordinatorRecordSerde<String> SERDE = new CoordinatorRecordSerde<>() {
        @Override
        public byte[] key(String record) {
            return record.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public byte[] value(String record) {
            return record.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] key, byte[] value) {
            return new String(value, StandardCharsets.UTF_8);
        }
    };

    @TempDir
    Path dir;

    @Test
    void ledAgainAtAHigherLeaderEpoch_appendsRefusedUntilReplayedAgain() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (LogFixture f = new LogFixture(dir)) {
            List<Long> streams = new ArrayList<>();
            for (int i = 0; i < PartitionLog.STREAMS_PER_PARTITION; i++) {
                streams.add(f.store.createStream().get(10, TimeUnit.SECONDS));
            }
            MetadataCache cache = new MetadataCache();
            cache.putTopic(new TopicInfo(ID, TOPIC, Map.of(), List.of(new PartitionInfo(0, SELF, 0, streams))));
            PartitionManager partitions = new PartitionManager(SELF, cache, f.store, f.metadata, LogConfig::defaults,
                    f.clock::get, scheduler, 60_000);
            try {
                PartitionCoordinatorLog<String> log = new PartitionCoordinatorLog<>(partitions, TOPIC, SERDE,
                        f.clock::get);
                // Never loaded here: nothing to write from.
                assertNotLeader(log, "unloaded");
                log.replay(0, r -> { });
                LogFixture.get(log.append(0, List.of("a")));
                // Moved away and back (leader epoch 0 -> 1 elsewhere -> 2 here): the state loaded at 0 may be stale.
                cache.putTopic(new TopicInfo(ID, TOPIC, Map.of(), List.of(new PartitionInfo(0, SELF, 2, streams))));
                assertNotLeader(log, "stale");
                List<String> replayed = new ArrayList<>();
                log.replay(0, replayed::add);
                assertEquals(List.of("a"), replayed, "the refused append is not in the log");
                LogFixture.get(log.append(0, List.of("b")));
                replayed.clear();
                log.replay(0, replayed::add);
                assertEquals(List.of("a", "b"), replayed);
            } finally {
                partitions.close();
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    private static void assertNotLeader(PartitionCoordinatorLog<String> log, String record) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> log.append(0, List.of(record)).get(10, TimeUnit.SECONDS));
        Throwable cause = e.getCause();
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertInstanceOf(NotLeaderOrFollowerException.class, cause, String.valueOf(cause));
    }
}
