package io.aloft.broker.share;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

/**
 * Several share consumers of one group, each polling on a thread of its own (a KafkaShareConsumer is
 * not thread-safe) with implicit acknowledgement and a few records a poll, each taking a moment to
 * "process" a poll's records so the others get a turn. Each consumer is made, polled, committed
 * (which accepts its last poll's records) and closed on its own thread.
 *
 * <p>Thread-safe: the test thread reads what the polling threads collect.
 */
final class SharingConsumers implements AutoCloseable {
    private static final int MAX_POLL_RECORDS = 5;
    /** Pretended work per poll that returned records: lets the other consumers acquire the next ones. */
    private static final long PROCESS_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final ShareTarget target;
    private final String group;
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, List<ConsumerRecord<String, String>>> received = new LinkedHashMap<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;

    private SharingConsumers(ShareTarget target, String group) {
        this.target = target;
        this.group = group;
    }

    static SharingConsumers start(ShareTarget target, String group, String topic, int count) {
        SharingConsumers s = new SharingConsumers(target, group);
        for (int i = 0; i < count; i++) {
            String name = "share-consumer-" + i;
            List<ConsumerRecord<String, String>> mine = new CopyOnWriteArrayList<>();
            s.received.put(name, mine);
            Thread t = new Thread(() -> s.run(topic, mine), name);
            t.setDaemon(true);
            s.threads.add(t);
            t.start();
        }
        return s;
    }

    private void run(String topic, List<ConsumerRecord<String, String>> mine) {
        try (KafkaShareConsumer<String, String> c = ShareConsumers.subscribed(target, group, topic, false,
                MAX_POLL_RECORDS)) {
            while (!stop) {
                int before = mine.size();
                c.poll(ShareConsumers.POLL).forEach(mine::add);
                if (mine.size() > before) {
                    LockSupport.parkNanos(PROCESS_NANOS);
                }
            }
            // Accepts the last poll's records. Without it, close() does not accept them: Kafka 4.3.1
            // delivers them again (delivery count 2) to the group's next consumer.
            c.commitSync();
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Waits until the group has every consumer as a member, each assigned a partition. */
    void awaitAllAssigned() {
        ShareTarget.await("all " + threads.size() + " consumers assigned", () -> {
            checkFailure();
            try {
                ShareGroupDescription d = target.describe(group);
                return d.members().stream().filter(m -> !m.assignment().topicPartitions().isEmpty()).count();
            } catch (Exception e) {
                return -1L; // not known yet
            }
        }, n -> n == threads.size());
    }

    /**
     * Waits until {@code distinct} different records were received in all, then stops and closes
     * the consumers; returns what each received, by consumer.
     */
    Map<String, List<ConsumerRecord<String, String>>> collectUntil(int distinct) throws InterruptedException {
        ShareTarget.await(distinct + " distinct records received", () -> {
            checkFailure();
            Set<String> values = new HashSet<>();
            received.values().forEach(l -> l.forEach(r -> values.add(r.value())));
            return values.size();
        }, n -> n >= distinct);
        close();
        checkFailure();
        return received;
    }

    /** Records received by each consumer, for messages. */
    Map<String, Integer> counts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        received.forEach((k, v) -> out.put(k, v.size()));
        return out;
    }

    private void checkFailure() {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("a consumer failed", t);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(30).toMillis());
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " did not close within 30 s");
            }
        }
    }
}
