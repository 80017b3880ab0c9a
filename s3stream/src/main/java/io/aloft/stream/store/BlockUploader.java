package io.aloft.stream.store;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.object.ObjectKeys;
import io.aloft.stream.object.ObjectSummary;
import io.aloft.stream.object.ObjectUploader;
import io.aloft.stream.object.ObjectWriterConfig;
import io.aloft.stream.object.StreamedObjectBody;
import io.aloft.stream.object.UploadThrottle;
import io.aloft.stream.storage.ObjectStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a set of batches (a sealed log-cache block, or the records recovered from the WAL) into
 * objects and commits them: streams holding at least the split threshold get a stream object of
 * their own, the rest share one stream-set object.
 *
 * <p>A commit rejected as {@code FENCED} (or the stream closed or deleted) means some stream of
 * the upload is no longer this node's to write; its
 * ranges are dropped (the bytes stay in the object, unreferenced) and the rest is committed, so
 * one moved stream never blocks the others. Objects whose commit never happens stay prepared and
 * are marked for deletion by metadata when their TTL expires.
 *
 * <p>Stateless apart from its collaborators; thread-safe.
 */
final class BlockUploader {
    private static final Logger log = LoggerFactory.getLogger(BlockUploader.class);
    private static final long MULTIPART_THRESHOLD_FLOOR = 64L << 20;

    private final StreamStoreConfig config;
    private final ObjectStorage storage;
    private final StreamMetadata metadata;
    private final ObjectWriterConfig writerConfig;
    private final LongSupplier clock;
    /** Where seals' blocks are encoded: the store's upload thread, not a storage I/O thread. */
    private final Executor encoding;
    private final StreamStoreStats stats;

    BlockUploader(StreamStoreConfig config, ObjectStorage storage, StreamMetadata metadata, LongSupplier clock) {
        this(config, storage, metadata, clock, Runnable::run, new StreamStoreStats());
    }

    /**
     * @param encoding runs the encoding of each block of a streamed upload
     * @param stats counts each object uploaded
     */
    BlockUploader(StreamStoreConfig config, ObjectStorage storage, StreamMetadata metadata, LongSupplier clock,
            Executor encoding, StreamStoreStats stats) {
        this.encoding = encoding;
        this.stats = stats;
        this.config = config;
        this.storage = storage;
        this.metadata = metadata;
        this.clock = clock;
        // A seal is at most s3.wal.upload.threshold.bytes: send it as one PUT (billed as one request)
        // unless it is far larger than a part; multipart costs a create, N parts and a complete.
        this.writerConfig = ObjectWriterConfig.builder().blockSize(config.objectBlockSizeBytes())
                .multipartThreshold(Math.max(MULTIPART_THRESHOLD_FLOOR, config.uploadThresholdBytes() * 2)).build();
    }

    /** What one upload produced, ready to commit. */
    record Uploaded(ObjectSummary streamSet, List<ObjectSummary> streamObjects) {
    }

    /**
     * Uploads the batches (each stream's list in offset order, contiguous) at full speed and
     * returns what to commit. Fails if any upload fails; the caller retries.
     */
    CompletableFuture<Uploaded> upload(Map<Long, List<StreamRecordBatch>> batchesByStream) {
        return upload(batchesByStream, bytes -> UploadThrottle.NONE);
    }

    /**
     * {@link #upload(Map)} with each object paced by its throttle ({@code throttles} maps an
     * object's size to it; see {@link UploadPacer}).
     */
    CompletableFuture<Uploaded> upload(Map<Long, List<StreamRecordBatch>> batchesByStream,
            LongFunction<UploadThrottle> throttles) {
        TreeMap<Long, List<StreamRecordBatch>> sorted = new TreeMap<>(batchesByStream);
        List<Long> split = new ArrayList<>();
        List<Long> shared = new ArrayList<>();
        sorted.forEach((streamId, batches) -> {
            long bytes = 0;
            for (StreamRecordBatch b : batches) {
                bytes += b.size();
            }
            (bytes >= config.splitThresholdBytes() ? split : shared).add(streamId);
        });
        int objects = split.size() + (shared.isEmpty() ? 0 : 1);
        if (objects == 0) {
            return CompletableFuture.completedFuture(new Uploaded(null, List.of()));
        }
        long now = clock.getAsLong();
        return metadata.prepareObjects(new PrepareObjectsRequest(config.nodeId(), objects, config.prepareTtlMs(), now))
                .thenCompose(firstId -> {
                    long id = firstId;
                    CompletableFuture<ObjectSummary> streamSet = CompletableFuture.completedFuture(null);
                    if (!shared.isEmpty()) {
                        streamSet = write(id++, shared, sorted, throttles);
                    }
                    List<CompletableFuture<ObjectSummary>> streamObjects = new ArrayList<>();
                    for (long streamId : split) {
                        streamObjects.add(write(id++, List.of(streamId), sorted, throttles));
                    }
                    CompletableFuture<ObjectSummary> sso = streamSet;
                    return CompletableFuture.allOf(streamObjects.toArray(CompletableFuture[]::new))
                            .thenCombine(sso, (v, s) -> new Uploaded(s,
                                    streamObjects.stream().map(CompletableFuture::join).toList()));
                });
    }

    /**
     * Writes one object. Up to the multipart threshold (every seal, by default) it goes out as
     * one streamed PUT, encoded block by block as storage reads it and paced by its throttle,
     * instead of being encoded whole into one buffer first: that burst of allocation, copying and
     * CRCs, followed by one big write, is what stalled appends at every seal. A retry encodes again
     * from the batches, which the log cache keeps until the commit.
     */
    private CompletableFuture<ObjectSummary> write(long objectId, List<Long> streamIds,
            Map<Long, List<StreamRecordBatch>> batches, LongFunction<UploadThrottle> throttles) {
        long started = System.nanoTime();
        return counted(started, writeObject(objectId, streamIds, batches, throttles));
    }

    /** Counts an upload in the stats when it ends: its object's size and time, or a failure. */
    private CompletableFuture<ObjectSummary> counted(long started, CompletableFuture<ObjectSummary> upload) {
        return upload.whenComplete((summary, error) -> {
            if (error == null) {
                stats.recordUpload(summary.size(), System.nanoTime() - started);
            } else {
                stats.recordUploadFailure();
            }
        });
    }

    private CompletableFuture<ObjectSummary> writeObject(long objectId, List<Long> streamIds,
            Map<Long, List<StreamRecordBatch>> batches, LongFunction<UploadThrottle> throttles) {
        List<StreamRecordBatch> ordered = new ArrayList<>();
        for (long streamId : streamIds) {
            ordered.addAll(batches.get(streamId));
        }
        StreamedObjectBody body = StreamedObjectBody.of(objectId, ordered, writerConfig, UploadThrottle.NONE);
        if (body.length() < writerConfig.multipartThreshold()) {
            StreamedObjectBody paced = body.paced(throttles.apply(body.length()), encoding);
            return storage.put(ObjectKeys.key(objectId), paced).thenApply(v -> paced.summary());
        }
        return writeMultipart(objectId, streamIds, batches);
    }

    /** An object too big for one PUT (a recovery of a big WAL, say), in parts. */
    private CompletableFuture<ObjectSummary> writeMultipart(long objectId, List<Long> streamIds,
            Map<Long, List<StreamRecordBatch>> batches) {
        long payload = 0;
        long count = 0;
        for (long streamId : streamIds) {
            for (StreamRecordBatch b : batches.get(streamId)) {
                payload += b.size();
                count++;
            }
        }
        ObjectUploader uploader = ObjectUploader.create(storage, objectId, writerConfig,
                ObjectUploader.encodedSizeBound(payload, count, streamIds.size(), writerConfig.blockSize()));
        for (long streamId : streamIds) {
            for (StreamRecordBatch b : batches.get(streamId)) {
                uploader.write(b);
            }
        }
        return uploader.finish();
    }

    /**
     * Commits an upload. Ranges of streams that were fenced meanwhile are dropped and the rest
     * committed; returns the ids of streams whose ranges were dropped.
     */
    CompletableFuture<Set<Long>> commit(Uploaded uploaded) {
        return commit(uploaded, Set.of());
    }

    private CompletableFuture<Set<Long>> commit(Uploaded uploaded, Set<Long> dropped) {
        List<StreamRange> ranges = new ArrayList<>();
        long ssoId = -1;
        long ssoSize = 0;
        if (uploaded.streamSet() != null) {
            for (StreamRange r : uploaded.streamSet().ranges()) {
                if (!dropped.contains(r.streamId())) {
                    ranges.add(r);
                }
            }
            if (!ranges.isEmpty()) {
                ssoId = uploaded.streamSet().objectId();
                ssoSize = uploaded.streamSet().size();
            }
        }
        List<StreamObjectSpec> streamObjects = new ArrayList<>();
        for (ObjectSummary so : uploaded.streamObjects()) {
            StreamRange r = so.ranges().get(0);
            if (!dropped.contains(r.streamId())) {
                streamObjects.add(new StreamObjectSpec(so.objectId(), so.size(), r));
            }
        }
        if (ranges.isEmpty() && streamObjects.isEmpty()) {
            return CompletableFuture.completedFuture(dropped);
        }
        CommitStreamSetObjectRequest request = new CommitStreamSetObjectRequest(config.nodeId(), ssoId, ssoSize,
                ranges, streamObjects, List.of(), clock.getAsLong());
        return metadata.commitStreamSetObject(request).thenApply(v -> dropped).exceptionallyCompose(error -> {
            Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            if (cause instanceof StreamMetadataException e && ownerLost(e.code())) {
                return fencedStreams(uploaded).thenCompose(fenced -> {
                    if (fenced.isEmpty() || dropped.containsAll(fenced)) {
                        return CompletableFuture.failedFuture(cause); // no progress: let the caller retry
                    }
                    Set<Long> all = new java.util.HashSet<>(dropped);
                    all.addAll(fenced);
                    log.info("Dropping ranges of fenced streams {} from the commit of object {}", fenced, ssoIdOf(uploaded));
                    return commit(uploaded, all);
                });
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /** Codes meaning some stream of the upload is no longer ours to write: fenced, closed or deleted. */
    private static boolean ownerLost(StreamMetadataException.Code code) {
        return code == StreamMetadataException.Code.FENCED || code == StreamMetadataException.Code.STREAM_NOT_OPEN
                || code == StreamMetadataException.Code.STREAM_NOT_FOUND;
    }

    private static long ssoIdOf(Uploaded uploaded) {
        return uploaded.streamSet() == null ? -1 : uploaded.streamSet().objectId();
    }

    /** Streams of the upload whose metadata epoch no longer matches the uploaded range, or that are gone. */
    private CompletableFuture<Set<Long>> fencedStreams(Uploaded uploaded) {
        List<StreamRange> all = new ArrayList<>();
        if (uploaded.streamSet() != null) {
            all.addAll(uploaded.streamSet().ranges());
        }
        uploaded.streamObjects().forEach(so -> all.addAll(so.ranges()));
        Set<Long> fenced = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<CompletableFuture<Void>> checks = new ArrayList<>();
        for (StreamRange r : all) {
            checks.add(metadata.describeStream(r.streamId()).handle((info, error) -> {
                if (error != null || info.epoch() != r.epoch() || info.state() != StreamInfo.State.OPEN) {
                    fenced.add(r.streamId());
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).thenApply(v -> Set.copyOf(fenced));
    }
}
