package io.aloft.compat.streams;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * A Kafka Streams application for the compatibility harness: counts the records of each key of an
 * input topic (input → groupByKey → count, a KTable in the RocksDB store {@value #STORE}, whose
 * changelog topic Streams creates compacted) and writes every new count to an output topic. Run in a
 * child JVM by the harness ({@code io.aloft.compat.StreamsApp}), compiled against kafka-streams alone.
 *
 * <p>Arguments: bootstrap, application.id, input topic, output topic, state.dir, own time limit in
 * seconds, and optionally {@code processing.guarantee} (at_least_once by default; exactly_once_v2
 * commits every 100 ms as Streams does by default for it) and a pause in milliseconds per record
 * (so a test can crash the broker while records are still being processed). It talks to the harness by lines: on stdout {@code STATE <state>} at each state change,
 * {@code RESTORED <store> <partition> <records>} when a store partition finished restoring from its
 * changelog, {@code COUNTS k=v,...} (keys sorted) answering a {@code counts} line on stdin, and
 * {@code STOPPED} last; a {@code stop} line or the end of stdin (the harness is gone) closes it,
 * leaving the group so that the next instance is not kept waiting for this one's session to expire.
 * It exits with status 2 at its own time limit, 1 on an error, 0 after a clean stop.
 *
 * <p>Threads: main reads stdin and answers; Streams' own threads call the listeners, which only
 * print (System.out is synchronized).
 */
public final class CountingApp {
    static final String STORE = "counts";

    private CountingApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6 && args.length != 8) {
            System.err.println("usage: CountingApp <bootstrap> <application.id> <input> <output> <state.dir> <limit s>"
                    + " [<processing.guarantee> <pause ms per record>]");
            System.exit(64);
        }
        String guarantee = args.length == 8 ? args[6] : StreamsConfig.AT_LEAST_ONCE;
        long pauseMs = args.length == 8 ? Long.parseLong(args[7]) : 0;
        long limitSeconds = Long.parseLong(args[5]);
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(limitSeconds));
                System.out.println("FAILED: own time limit of " + limitSeconds + " s reached");
                Runtime.getRuntime().halt(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "own-time-limit");
        watchdog.setDaemon(true);
        watchdog.start();

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args[2], Consumed.with(Serdes.String(), Serdes.String()))
                .peek((k, v) -> pause(pauseMs))
                .groupByKey()
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE)
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));

        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
        // Every update reaches the output and the changelog within half a second: the harness waits for them.
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        if (guarantee.equals(StreamsConfig.AT_LEAST_ONCE)) {
            p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "500");
        }
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.setStateListener((now, before) -> System.out.println("STATE " + now));
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long restored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
                System.out.println("RESTORED " + store + " " + tp.partition() + " " + total);
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> close(streams), "close-on-sigterm"));
        streams.start();

        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null && !line.equals("stop"); line = in.readLine()) {
                if (line.equals("counts")) {
                    System.out.println(counts(streams));
                } else if (!line.isBlank()) {
                    System.out.println("FAILED: unknown command '" + line + "'");
                }
            }
        } catch (IOException e) {
            System.out.println("FAILED: reading stdin: " + e);
        }
        close(streams);
        System.exit(streams.state() == KafkaStreams.State.NOT_RUNNING ? 0 : 1);
    }

    private static void pause(long ms) {
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The store's contents, or why they cannot be read now (the harness asks again). */
    private static String counts(KafkaStreams streams) {
        try {
            ReadOnlyKeyValueStore<String, Long> store = streams.store(
                    StoreQueryParameters.fromNameAndType(STORE, QueryableStoreTypes.<String, Long>keyValueStore()));
            TreeMap<String, Long> sorted = new TreeMap<>();
            try (KeyValueIterator<String, Long> all = store.all()) {
                while (all.hasNext()) {
                    KeyValue<String, Long> kv = all.next();
                    sorted.put(kv.key, kv.value);
                }
            }
            StringJoiner out = new StringJoiner(",", "COUNTS ", "");
            sorted.forEach((k, v) -> out.add(k + "=" + v));
            return out.toString();
        } catch (RuntimeException e) {
            return "UNAVAILABLE " + e;
        }
    }

    /** Idempotent: the second call (stdin's end, then the shutdown hook) returns at once. */
    private static synchronized void close(KafkaStreams streams) {
        if (streams.state() == KafkaStreams.State.NOT_RUNNING) {
            return;
        }
        boolean clean = streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation
                .LEAVE_GROUP).withTimeout(Duration.ofSeconds(20)));
        System.out.println(clean ? "STOPPED" : "FAILED: did not close within 20 s");
        System.out.flush();
    }
}
