package io.aloft.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.aloft.stream.metadata.MemoryStreamMetadata;
import io.aloft.stream.storage.ObjectStorage;
import io.aloft.stream.storage.ObjectStorages;
import io.aloft.stream.store.StreamStore;
import io.aloft.stream.store.StreamStoreConfig;
import io.aloft.wal.BlockDeviceWal;
import io.aloft.wal.WalConfig;
import io.aloft.wal.WriteAheadLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Real parts for partition-log tests: a WAL file, file:// object storage, in-memory stream
 * metadata, a stream store on them, and a settable clock. Closed by the test. Public for the
 * log cleaner's tests.
 */
public final class LogFixture implements AutoCloseable {
    public static final TopicPartition TP = new TopicPartition("orders", 3);
    public static final long T0 = 1_700_000_000_000L;

    final Path dir;
    public final AtomicLong clock = new AtomicLong(T0);
    public final MemoryStreamMetadata metadata = new MemoryStreamMetadata();
    /** What the store talks to: the metadata, or a wrapper a test puts around it before {@link #startStore}. */
    public java.util.function.UnaryOperator<io.aloft.stream.metadata.StreamMetadata> metadataView = m -> m;
    final ObjectStorage storage;
    WriteAheadLog wal;
    public StreamStore store;
    final List<Long> streamIds = new ArrayList<>();
    private final List<PartitionLog> opened = new ArrayList<>();
    private long epoch;

    public LogFixture(Path dir) throws Exception {
        this.dir = dir;
        this.storage = new SwitchableStorage(ObjectStorages.open(dir.resolve("objects").toUri().toString()));
        startStore();
        for (int i = 0; i < PartitionLog.STREAMS_PER_PARTITION; i++) {
            streamIds.add(store.createStream().get(10, TimeUnit.SECONDS));
        }
    }

    /** File storage whose writes fail (as against a stopped S3 server) while {@link #objectStorageDown} is set. */
    private static final class SwitchableStorage extends io.aloft.stream.storage.ForwardingObjectStorage {
        volatile boolean down;

        SwitchableStorage(ObjectStorage delegate) {
            super(delegate);
        }

        private <T> CompletableFuture<T> refused() {
            return CompletableFuture.failedFuture(new java.io.IOException("connection refused (object storage down)"));
        }

        @Override
        public CompletableFuture<Void> put(String key, ByteBuffer data) {
            return down ? refused() : delegate.put(key, data);
        }

        @Override
        public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
            return down ? refused() : delegate.putIfAbsent(key, data);
        }

        @Override
        public CompletableFuture<io.aloft.stream.storage.MultipartUpload> createMultipartUpload(String key) {
            return down ? refused() : delegate.createMultipartUpload(key);
        }
    }

    /** Makes object storage refuse writes (an outage) or take them again. */
    public void objectStorageDown(boolean down) {
        ((SwitchableStorage) storage).down = down;
    }

    /** Opens the WAL and a stream store on it (recovering what the WAL holds). */
    public void startStore() throws Exception {
        wal = BlockDeviceWal.open(WalConfig.builder().path(dir.resolve("broker.wal")).capacityBytes(16 << 20).build());
        store = StreamStore.open(StreamStoreConfig.builder(1).uploadThresholdBytes(256 * 1024)
                .logCacheSizeBytes(4 << 20).uploadIntervalMs(60_000).objectBlockSizeBytes(16 * 1024).build(),
                wal, storage, metadataView.apply(metadata), clock::get);
    }

    /** Closes the store and the WAL, as a broker shutting down does. */
    public void stopStore() throws Exception {
        store.close();
        wal.close();
    }

    /** Opens the partition with the next stream epoch (fencing any earlier handle). */
    public PartitionLog open(Map<String, String> topicConfig) throws Exception {
        epoch++;
        PartitionLog log = PartitionLog.open(TP, streamIds, store, epoch, (int) epoch,
                LogConfig.fromTopicOverrides(topicConfig, LogConfig.defaults()), clock::get)
                .get(10, TimeUnit.SECONDS);
        opened.add(log);
        return log;
    }

    public PartitionLog open() throws Exception {
        return open(Map.of());
    }

    /** Forgets a log whose broker "crashed" (its store was stopped under it): it is not closed at the end. */
    public void crashed(PartitionLog log) {
        opened.remove(log);
    }

    @Override
    public void close() throws Exception {
        for (PartitionLog log : opened) {
            log.close().get(10, TimeUnit.SECONDS);
        }
        stopStore();
        storage.close();
    }

    public static SimpleRecord rec(long ts, String value) {
        return new SimpleRecord(ts, ("k-" + value).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }

    /** One batch of {@code n} records with timestamp {@code ts}. */
    static MemoryRecords batch(Compression compression, long ts, int n) {
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            records[i] = rec(ts, "v" + i);
        }
        return MemoryRecords.withRecords(compression, records);
    }

    static MemoryRecords batch(int n) {
        return batch(Compression.NONE, T0, n);
    }

    /** An idempotent batch of {@code n} records from sequence {@code seq}. */
    static MemoryRecords idempotent(long pid, short producerEpoch, int seq, int n) {
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            records[i] = rec(T0, "p" + pid + "-" + (seq + i));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, producerEpoch, seq, records);
    }

    public static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    /** Asserts the future fails with a PartitionLogException carrying {@code expected}. */
    public static PartitionLogException assertFails(Errors expected, CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        Throwable cause = e.getCause();
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        PartitionLogException ple = assertInstanceOf(PartitionLogException.class, cause);
        assertEquals(expected, ple.error(), ple.getMessage());
        return ple;
    }

    /** A transactional batch of {@code n} records from sequence {@code seq}, values "p{pid}-{seq}". */
    public static MemoryRecords transactional(long pid, short producerEpoch, int seq, int n) {
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            records[i] = rec(T0, "p" + pid + "-" + (seq + i));
        }
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, producerEpoch, seq, records);
    }

    /**
     * The values of the records a read_committed Kafka consumer keeps from {@code read}, from
     * offset {@code from} on, filtering as the consumer does: a producer's transactional batches
     * are dropped from the first offset of each aborted transaction listed until its ABORT marker;
     * control batches are never returned.
     */
    public static List<String> committedValues(LogReadResult read, long from) {
        java.util.PriorityQueue<AbortedTxn> pending = new java.util.PriorityQueue<>(
                java.util.Comparator.comparingLong(AbortedTxn::firstOffset));
        pending.addAll(read.abortedTransactions());
        java.util.Set<Long> aborting = new java.util.HashSet<>();
        List<String> out = new ArrayList<>();
        for (org.apache.kafka.common.record.internal.RecordBatch b : read.records().batches()) {
            if (b.hasProducerId()) {
                while (!pending.isEmpty() && pending.peek().firstOffset() <= b.lastOffset()) {
                    aborting.add(pending.poll().producerId());
                }
                if (b.isControlBatch()) {
                    // An emptied marker (compaction kept it for its producer) has no record.
                    java.util.Iterator<org.apache.kafka.common.record.internal.Record> it = b.iterator();
                    if (it.hasNext() && org.apache.kafka.common.record.internal.ControlRecordType.parse(it.next().key())
                            == org.apache.kafka.common.record.internal.ControlRecordType.ABORT) {
                        aborting.remove(b.producerId());
                    }
                    continue;
                }
                if (b.isTransactional() && aborting.contains(b.producerId())) {
                    continue;
                }
            }
            if (b.isControlBatch()) {
                continue;
            }
            for (org.apache.kafka.common.record.internal.Record r : b) {
                if (r.offset() >= from) {
                    out.add(StandardCharsets.UTF_8.decode(r.value()).toString());
                }
            }
        }
        return out;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
