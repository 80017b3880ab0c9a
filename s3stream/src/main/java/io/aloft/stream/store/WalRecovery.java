package io.aloft.stream.store;

import io.aloft.stream.StreamRecordBatch;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadata;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.wal.WalRecord;
import io.aloft.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays WAL records into object storage: for each stream, keeps the records that continue exactly
 * where its committed data ends, written with its current epoch while it is still open (a stream
 * that was moved to a higher epoch belongs to its new owner now); uploads and commits them. On
 * start a broker replays its own WAL and then resets it ({@link #run}); a broker taking over a
 * dead broker's WAL replays what it read there, for the streams that broker still holds open
 * ({@link #replay} with its node id).
 * Runs on the calling thread; one replay at a time.
 */
final class WalRecovery {
    private static final Logger log = LoggerFactory.getLogger(WalRecovery.class);
    /** Any owner: a broker's own WAL holds only streams it opened. */
    static final int ANY_OWNER = -1;

    private final WriteAheadLog wal;
    private final StreamMetadata metadata;
    private final BlockUploader uploader;

    WalRecovery(WriteAheadLog wal, StreamMetadata metadata, BlockUploader uploader) {
        this.wal = wal;
        this.metadata = metadata;
        this.uploader = uploader;
    }

    void run() {
        Replayed replayed = replay(wal.recover(), ANY_OWNER);
        wal.reset().join();
        log.info("Recovered {} WAL records; committed data of {} streams", replayed.records(), replayed.streams());
    }

    /** What a replay did: records read, streams whose data it committed. */
    record Replayed(int records, int streams) {
    }

    /**
     * Uploads and commits the records that continue streams open by {@code ownerNodeId}
     * ({@link #ANY_OWNER}: by anyone) at the epoch they were written with.
     */
    Replayed replay(Iterator<WalRecord> walRecords, int ownerNodeId) {
        Map<Long, List<StreamRecordBatch>> byStream = new LinkedHashMap<>();
        int records = 0;
        for (Iterator<WalRecord> it = walRecords; it.hasNext(); ) {
            WalRecord r = it.next();
            StreamRecordBatch batch;
            try {
                batch = WalRecordCodec.decode(r.body());
            } catch (IllegalArgumentException e) {
                log.warn("Skipping WAL record at {}: {}", r.offset(), e.getMessage());
                continue;
            }
            byStream.computeIfAbsent(batch.streamId(), k -> new ArrayList<>()).add(batch);
            records++;
        }
        Map<Long, List<StreamRecordBatch>> toCommit = new LinkedHashMap<>();
        byStream.forEach((streamId, batches) -> {
            List<StreamRecordBatch> kept = continuation(streamId, batches, ownerNodeId);
            if (!kept.isEmpty()) {
                toCommit.put(streamId, kept);
            }
        });
        if (!toCommit.isEmpty()) {
            BlockUploader.Uploaded uploaded = uploader.upload(toCommit).join();
            Set<Long> fenced = uploader.commit(uploaded).join();
            if (!fenced.isEmpty()) {
                log.info("Recovered data of streams {} was not committed: they have new owners", fenced);
            }
        }
        return new Replayed(records, toCommit.size());
    }

    private List<StreamRecordBatch> continuation(long streamId, List<StreamRecordBatch> batches, int ownerNodeId) {
        StreamInfo info;
        try {
            info = metadata.describeStream(streamId).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof StreamMetadataException m
                    && m.code() == StreamMetadataException.Code.STREAM_NOT_FOUND) {
                return List.of(); // deleted meanwhile
            }
            throw e;
        }
        if (info.state() != StreamInfo.State.OPEN || (ownerNodeId != ANY_OWNER && info.ownerNodeId() != ownerNodeId)) {
            return List.of();
        }
        List<StreamRecordBatch> kept = new ArrayList<>();
        long next = info.endOffset();
        for (StreamRecordBatch b : batches) {
            if (b.lastOffsetExclusive() <= next) {
                continue; // already committed before the crash
            }
            if (b.epoch() != info.epoch()) {
                continue; // written by an earlier owner's epoch
            }
            if (b.baseOffset() != next) {
                log.warn("Stream {}: WAL batch at {} does not continue the committed end {}; dropping the rest",
                        streamId, b.baseOffset(), next);
                break;
            }
            kept.add(b);
            next = b.lastOffsetExclusive();
        }
        return kept;
    }
}
