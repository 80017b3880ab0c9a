package io.aloft.bench.failover;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the whole topic back after the rounds and compares it with what {@link SequencedProducer}
 * was told: per round (the round a record was sent in), acknowledged records missing from the log
 * (<b>lost</b>), records in the log more than once (<b>duplicated</b>), and records not in
 * increasing sequence order within their partition (<b>reordered</b>). A record whose send failed or
 * was never answered may or may not be in the log; such records are counted, not judged. Records
 * without an 8-byte key are the served-probe's and are only counted.
 *
 * <p>Not thread-safe: the benchmark's main thread runs it once the producer has stopped.
 */
final class LossCheck {

    /** Per interval: index k holds the records sent after kill k and before kill k + 1 (0: before the first kill). */
    record Result(long[] sent, long[] acked, long[] lost, long[] duplicated, long[] reordered,
            long[] unacknowledgedPresent, long probeRecords, long consumed, List<String> lostExamples, double seconds,
            String error) {
        long total(long[] counts) {
            long sum = 0;
            for (long c : counts) {
                sum += c;
            }
            return sum;
        }
    }

    private LossCheck() {
    }

    static Result run(String bootstrap, String topic, int partitions, SequencedProducer load, int rounds,
            long timeoutMs) {
        long start = System.nanoTime();
        int n = rounds + 1;
        long[] sent = new long[n];
        long[] acked = new long[n];
        long[] lost = new long[n];
        long[] duplicated = new long[n];
        long[] reordered = new long[n];
        long[] unackedPresent = new long[n];
        long probes = 0;
        long consumed = 0;
        String error = null;
        int[][] seen = new int[partitions][];
        for (int p = 0; p < partitions; p++) {
            seen[p] = new int[load.ledger(p).size()];
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(4 << 20));
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(topic, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(60));
            long[] lastSeq = new long[partitions];
            java.util.Arrays.fill(lastSeq, -1);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (!caughtUp(consumer, tps, end)) {
                if (System.nanoTime() > deadline) {
                    error = "not read to the end within " + timeoutMs / 1000 + " s";
                    break;
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    consumed++;
                    if (r.key() == null || r.key().length != 8) {
                        probes++;
                        continue;
                    }
                    int p = r.partition();
                    long seq = ByteBuffer.wrap(r.key()).getLong();
                    if (seq < 0 || seq >= seen[p].length) {
                        error = "partition " + p + " holds sequence " + seq + ", never sent";
                        continue;
                    }
                    seen[p][(int) seq]++;
                    if (seq <= lastSeq[p]) {
                        reordered[load.ledger(p).round((int) seq)]++;
                    }
                    lastSeq[p] = Math.max(lastSeq[p], seq);
                }
            }
        } catch (RuntimeException e) {
            error = e.toString();
        }
        List<String> lostExamples = new ArrayList<>(); // up to 20, as partition:seq@kills before it was sent
        for (int p = 0; p < partitions; p++) {
            SequencedProducer.Ledger ledger = load.ledger(p);
            for (int seq = 0; seq < seen[p].length; seq++) {
                int round = ledger.round(seq);
                byte outcome = ledger.outcome(seq);
                sent[round]++;
                if (outcome == SequencedProducer.ACKED) {
                    acked[round]++;
                    if (seen[p][seq] == 0) {
                        lost[round]++;
                        if (lostExamples.size() < 20) {
                            lostExamples.add(p + ":" + seq + "@" + round);
                        }
                    }
                } else if (seen[p][seq] > 0) {
                    unackedPresent[round]++;
                }
                if (seen[p][seq] > 1) {
                    duplicated[round] += seen[p][seq] - 1;
                }
            }
        }
        return new Result(sent, acked, lost, duplicated, reordered, unackedPresent, probes, consumed,
                lostExamples, (System.nanoTime() - start) / 1e9, error);
    }

    private static boolean caughtUp(KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> tps,
            Map<TopicPartition, Long> end) {
        for (TopicPartition tp : tps) {
            if (consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp)) {
                return false;
            }
        }
        return true;
    }
}
