package io.aloft.stream.storage;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one {@link ObjectStorage}'s traffic, by operation, for cost figures and metrics.
 *
 * <p><b>Thread-safety:</b> thread-safe and lock-free; readers may see one counter a moment ahead
 * of another.
 *
 * <p>What counts as a request: one call to the storage service's API, as billed: one
 * DeleteObjects per 1,000 keys, one ListObjectsV2 per page. Retried attempts of a request are
 * counted in {@link #retries} and not again in {@link #requests}, so the number of HTTP requests
 * sent is {@code requests + retries}. The file backend counts the requests S3 would need for the
 * same calls, so a local run predicts the S3 bill.
 */
public final class ObjectStorageStats {

    /** The billed request types. */
    public enum Operation {
        PUT("PutObject requests; bytes = object bytes written"),
        GET("GetObject requests, whole or ranged; bytes = bytes read"),
        HEAD("HeadObject requests"),
        DELETE("DeleteObjects requests, one per 1,000 keys; bytes = 0"),
        LIST("ListObjectsV2 requests, one per page"),
        MULTIPART_CREATE("CreateMultipartUpload requests"),
        MULTIPART_PART("UploadPart requests; bytes = part bytes written"),
        MULTIPART_COMPLETE("CompleteMultipartUpload requests"),
        MULTIPART_ABORT("AbortMultipartUpload requests");

        private final String help;

        Operation(String help) {
            this.help = help;
        }

        /** What a request of this type is, and what its byte counter measures. */
        public String help() {
            return help;
        }
    }

    /** Help text of the four counters, for metric registration. */
    public static final String REQUESTS_HELP = "Requests issued, not counting retried attempts";
    public static final String BYTES_HELP = "Payload bytes moved by successful requests";
    public static final String FAILURES_HELP =
            "Requests that failed after all retries, including not-found answers";
    public static final String RETRIES_HELP = "Extra attempts made after a retryable failure";

    /**
     * Told the latency of each successful request: from issuing it until its answer (a GET's whole
     * body) arrived, retries included. Called on the storage client's threads: must be quick and
     * must not block.
     */
    @FunctionalInterface
    public interface LatencyListener {
        void record(Operation operation, long nanos);
    }

    private final Map<Operation, Counters> counters = new EnumMap<>(Operation.class);
    private volatile LatencyListener latency = (operation, nanos) -> { };

    public ObjectStorageStats() {
        for (Operation operation : Operation.values()) {
            counters.put(operation, new Counters());
        }
    }

    /**
     * Sends each successful request's latency to {@code listener} (replacing any earlier one).
     * Only backends that time their requests call it: S3, at the one place every request passes
     * ({@code S3ObjectStorage.call}); the file backend does not.
     */
    public void requestLatencyTo(LatencyListener listener) {
        this.latency = listener;
    }

    /** Records one successful request's latency. */
    public void recordLatency(Operation operation, long nanos) {
        latency.record(operation, nanos);
    }

    public void recordRequest(Operation operation) {
        counters.get(operation).requests.increment();
    }

    public void recordBytes(Operation operation, long bytes) {
        counters.get(operation).bytes.add(bytes);
    }

    public void recordFailure(Operation operation) {
        counters.get(operation).failures.increment();
    }

    public void recordRetry(Operation operation) {
        counters.get(operation).retries.increment();
    }

    public long requests(Operation operation) {
        return counters.get(operation).requests.sum();
    }

    public long bytes(Operation operation) {
        return counters.get(operation).bytes.sum();
    }

    public long failures(Operation operation) {
        return counters.get(operation).failures.sum();
    }

    public long retries(Operation operation) {
        return counters.get(operation).retries.sum();
    }

    public long totalRequests() {
        long total = 0;
        for (Counters c : counters.values()) {
            total += c.requests.sum();
        }
        return total;
    }

    public long totalRetries() {
        long total = 0;
        for (Counters c : counters.values()) {
            total += c.retries.sum();
        }
        return total;
    }

    /** Non-zero counters, e.g. {@code {PUT: requests=3 bytes=12 failures=0 retries=1}}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<Operation, Counters> e : counters.entrySet()) {
            Counters c = e.getValue();
            long requests = c.requests.sum();
            long retries = c.retries.sum();
            if (requests == 0 && retries == 0) {
                continue;
            }
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(e.getKey()).append(": requests=").append(requests)
                    .append(" bytes=").append(c.bytes.sum())
                    .append(" failures=").append(c.failures.sum())
                    .append(" retries=").append(retries);
        }
        return sb.append('}').toString();
    }

    private static final class Counters {
        final LongAdder requests = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder retries = new LongAdder();
    }
}
