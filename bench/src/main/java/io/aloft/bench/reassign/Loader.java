package io.aloft.bench.reassign;

import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Fills partitions before they are moved: incompressible values (from a pool of random arrays, no
 * compression), large batches, acks=all. Stateless.
 */
final class Loader {
    static final int VALUE_BYTES = 8 * 1024;
    private static final int POOL = 64;

    private Loader() {
    }

    /** Writes about {@code bytes} of record values to partition 0 of {@code topic}; returns the seconds it took. */
    static double load(String bootstrap, String topic, long bytes) {
        long records = Math.max(1, bytes / VALUE_BYTES);
        byte[][] pool = pool();
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props(bootstrap))) {
            AtomicLong failed = new AtomicLong();
            AtomicReference<Exception> first = new AtomicReference<>();
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, pool[(int) (i % POOL)]), (md, e) -> {
                    if (e != null && failed.getAndIncrement() == 0) {
                        first.set(e);
                    }
                });
            }
            producer.flush();
            if (failed.get() > 0) {
                throw new IllegalStateException(failed.get() + " of " + records + " records to " + topic
                        + " failed", first.get());
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Writes {@code records} 1 KiB records to each of {@code partitions} of {@code topic}. */
    static void fillEach(String bootstrap, String topic, List<Integer> partitions, int records) {
        Properties p = props(bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "16384");
        byte[] value = new byte[1024];
        new Random(1).nextBytes(value);
        AtomicLong failed = new AtomicLong();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int r = 0; r < records; r++) {
                for (int partition : partitions) {
                    producer.send(new ProducerRecord<>(topic, partition, null, value), (md, e) -> {
                        if (e != null) {
                            failed.incrementAndGet();
                        }
                    });
                }
            }
            producer.flush();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " records to " + topic + " failed");
        }
    }

    private static byte[][] pool() {
        Random random = new Random(42);
        byte[][] pool = new byte[POOL][VALUE_BYTES];
        for (byte[] b : pool) {
            random.nextBytes(b);
        }
        return pool;
    }

    private static Properties props(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-loader");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }
}
