package io.aloft.stream.storage;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ObjectStorage} on S3 or an S3-compatible server, through the AWS SDK v2 async client
 * over Netty. Thread-safe: all state is the SDK client (thread-safe) and atomic counters.
 *
 * <p>Retries are the SDK's standard strategy (5xx, throttling such as 503 SlowDown, IO errors),
 * with our attempt count and exponential back-off with full jitter for both ordinary and
 * throttling errors; {@link S3RetryCounter} counts them. Multipart uploads are completed with
 * part number and ETag only: S3 and versitygw reject part checksums on completion when the
 * upload was created without a checksum algorithm.
 */
final class S3ObjectStorage implements ObjectStorage {

    private static final Logger LOG = LoggerFactory.getLogger(S3ObjectStorage.class);

    /** S3 DeleteObjects accepts at most this many keys. */
    static final int DELETE_BATCH = 1000;

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final S3Location location;
    private final EventLoopGroup eventLoops;
    private final S3AsyncClient client;
    private final ObjectStorageStats stats;
    private final int listPageSize;
    private final AtomicBoolean closed = new AtomicBoolean();

    private S3ObjectStorage(S3Location location, EventLoopGroup eventLoops, S3AsyncClient client,
                            ObjectStorageStats stats, int listPageSize) {
        this.location = location;
        this.eventLoops = eventLoops;
        this.client = client;
        this.stats = stats;
        this.listPageSize = listPageSize;
    }

    static S3ObjectStorage open(S3Location location, ObjectStorageOptions options) {
        ObjectStorageStats stats = new ObjectStorageStats();
        // Our own event loops, not the SDK's: they get our thread names, and close() can stop
        // them at once. The SDK's own group waits out a 2 s quiet period on every close.
        DefaultThreadFactory named = new DefaultThreadFactory("aloft-s3-" + INSTANCES.incrementAndGet(), true);
        Thread.UncaughtExceptionHandler handler = options.uncaughtExceptionHandler();
        EventLoopGroup eventLoops = new NioEventLoopGroup(Math.max(2, Runtime.getRuntime().availableProcessors()),
                handler == null ? named : r -> {
                    Thread t = named.newThread(r);
                    t.setUncaughtExceptionHandler(handler);
                    return t;
                });
        try {
            S3AsyncClient client = buildClient(location, options, stats, eventLoops);
            LOG.info("Opened S3 object storage {} with {}", location, options);
            return new S3ObjectStorage(location, eventLoops, client, stats, options.listPageSize());
        } catch (RuntimeException e) {
            eventLoops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static S3AsyncClient buildClient(S3Location location, ObjectStorageOptions options, ObjectStorageStats stats,
                                             EventLoopGroup eventLoops) {
        BackoffStrategy backoff = BackoffStrategy.exponentialDelay(options.retryBaseDelay(), options.retryMaxDelay());
        RetryStrategy retry = AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .maxAttempts(options.maxAttempts())
                .backoffStrategy(backoff)
                // The SDK's default throttling back-off starts at 1 s; SlowDown deserves the same
                // bounded, jittered curve as other retryable errors.
                .throttlingBackoffStrategy(backoff)
                .build();
        AwsCredentialsProvider credentials = location.accessKey() != null
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(location.accessKey(), location.secretKey()))
                : DefaultCredentialsProvider.builder().build();
        S3AsyncClientBuilder builder = S3AsyncClient.builder()
                .httpClientBuilder(NettyNioAsyncHttpClient.builder()
                        .eventLoopGroup(SdkEventLoopGroup.create(eventLoops))
                        .maxConcurrency(options.maxConnections())
                        .connectionTimeout(options.connectTimeout()))
                .credentialsProvider(credentials)
                .forcePathStyle(location.pathStyle())
                // Explicit, so an SDK default change cannot silently change the wire format. Puts and
                // parts go out as aws-chunked with a CRC32 trailer (STREAMING-UNSIGNED-PAYLOAD-TRAILER):
                // the server checks the payload and no SHA-256 over it is needed. versitygw, MinIO
                // and AWS accept this; CompleteMultipartUpload sends no part checksums (see above).
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_SUPPORTED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_SUPPORTED)
                .overrideConfiguration(o -> o
                        .retryStrategy(retry)
                        .addExecutionInterceptor(new S3RetryCounter(stats, location.bucket()))
                        .apiCallAttemptTimeout(options.attemptTimeout())
                        .apiCallTimeout(options.callTimeout()));
        if (location.region() != null) {
            builder.region(Region.of(location.region()));
        }
        if (location.endpoint() != null) {
            builder.endpointOverride(location.endpoint());
        }
        try {
            return builder.build();
        } catch (SdkException e) {
            throw new IllegalArgumentException("cannot create an S3 client for " + location + ": " + e.getMessage()
                    + (location.region() == null ? " (add &region=... to the URL)" : ""), e);
        }
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        checkKey(key);
        // A duplicate pins position and limit now: the caller may move its own buffer afterwards.
        ByteBuffer body = data.duplicate();
        long length = body.remaining();
        return call(Operation.PUT, key, () -> client.putObject(
                        r -> r.bucket(location.bucket()).key(key).contentLength(length),
                        AsyncRequestBody.fromRemainingByteBufferUnsafe(body)))
                .thenApply(r -> {
                    stats.recordBytes(Operation.PUT, length);
                    return null;
                });
    }

    /**
     * One PUT whose Content-Length is the body's length, its bytes read from the body as the HTTP
     * client asks for them (see {@link PutBodyRequestBody}); an SDK retry reads a new pass.
     */
    @Override
    public CompletableFuture<Void> put(String key, PutBody body) {
        checkKey(key);
        long length = body.length();
        return call(Operation.PUT, key, () -> client.putObject(
                        r -> r.bucket(location.bucket()).key(key).contentLength(length),
                        new PutBodyRequestBody(body)))
                .thenApply(r -> {
                    stats.recordBytes(Operation.PUT, length);
                    return null;
                });
    }

    @Override
    public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
        checkKey(key);
        ByteBuffer body = data.duplicate();
        long length = body.remaining();
        return call(Operation.PUT, key, () -> client.putObject(
                        r -> r.bucket(location.bucket()).key(key).contentLength(length).ifNoneMatch("*"),
                        AsyncRequestBody.fromRemainingByteBufferUnsafe(body)))
                .handle((r, error) -> {
                    if (error == null) {
                        stats.recordBytes(Operation.PUT, length);
                        return true;
                    }
                    if (unwrap(error) instanceof ObjectStorageException e && e.getCause() instanceof S3Exception s3
                            && (s3.statusCode() == 412 || s3.statusCode() == 409)) {
                        return false; // 412: the key exists; 409: a concurrent conditional write won
                    }
                    throw error instanceof java.util.concurrent.CompletionException ce ? ce
                            : new java.util.concurrent.CompletionException(error);
                });
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        checkKey(key);
        return call(Operation.GET, key, () -> client.getObject(
                        r -> r.bucket(location.bucket()).key(key), S3GetTransformer.whole()))
                .thenApply(fetched -> {
                    stats.recordBytes(Operation.GET, fetched.whole().remaining());
                    return fetched.whole();
                });
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long start, long endExclusive) {
        checkKey(key);
        checkRange(start, endExclusive);
        if (start == endExclusive) {
            return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        }
        String range = "bytes=" + start + "-" + (endExclusive - 1);
        return call(Operation.GET, key, () -> client.getObject(
                        r -> r.bucket(location.bucket()).key(key).range(range), S3GetTransformer.whole())
                .thenApply(fetched -> {
                    ByteBuffer body = fetched.whole();
                    if (fetched.response().contentRange() == null) {
                        // A server that ignores Range answers 200 with the whole object.
                        long end = Math.min(endExclusive, body.remaining());
                        return start >= end ? ByteBuffer.allocate(0)
                                : body.slice((int) start, (int) (end - start));
                    }
                    return body;
                })
                .exceptionally(error -> {
                    // 416: the range starts at or past the end. Documented as an empty result.
                    if (unwrap(error) instanceof S3Exception s3 && s3.statusCode() == 416) {
                        return ByteBuffer.allocate(0);
                    }
                    throw error instanceof CompletionException c ? c : new CompletionException(error);
                }))
                .thenApply(body -> {
                    stats.recordBytes(Operation.GET, body.remaining());
                    return body;
                });
    }

    @Override
    public CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
        checkKey(key);
        long end = start + PartSizes.total(start, partSizes);
        if (start == end) {
            return CompletableFuture.completedFuture(PartSizes.split(ByteBuffer.allocate(0), partSizes));
        }
        String range = "bytes=" + start + "-" + (end - 1);
        return call(Operation.GET, key, () -> client.getObject(
                        r -> r.bucket(location.bucket()).key(key).range(range), S3GetTransformer.parts(start, partSizes))
                .thenApply(S3GetTransformer.Fetched::body)
                .exceptionally(error -> {
                    // 416: the range starts at or past the end; every part is empty.
                    if (unwrap(error) instanceof S3Exception s3 && s3.statusCode() == 416) {
                        return PartSizes.split(ByteBuffer.allocate(0), partSizes);
                    }
                    throw error instanceof CompletionException c ? c : new CompletionException(error);
                }))
                .thenApply(parts -> {
                    long bytes = 0;
                    for (ByteBuffer p : parts) {
                        bytes += p.remaining();
                    }
                    stats.recordBytes(Operation.GET, bytes);
                    return parts;
                });
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String key) {
        checkKey(key);
        return call(Operation.HEAD, key, () -> client.headObject(r -> r.bucket(location.bucket()).key(key)))
                .thenApply(r -> new ObjectInfo(key, r.contentLength()));
    }

    @Override
    public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
        checkKey(key);
        return call(Operation.MULTIPART_CREATE, key,
                () -> client.createMultipartUpload(r -> r.bucket(location.bucket()).key(key)))
                .thenApply(r -> new S3MultipartUpload(this, key, r.uploadId()));
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        List<String> unique = new ArrayList<>(new LinkedHashSet<>(keys));
        unique.forEach(S3ObjectStorage::checkKey);
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        // One chunk at a time: a huge delete should not flood the connection pool.
        for (int from = 0; from < unique.size(); from += DELETE_BATCH) {
            List<String> chunk = unique.subList(from, Math.min(unique.size(), from + DELETE_BATCH));
            chain = chain.thenCompose(v -> deleteChunk(chunk));
        }
        return chain;
    }

    private CompletableFuture<Void> deleteChunk(List<String> chunk) {
        List<ObjectIdentifier> ids = new ArrayList<>(chunk.size());
        for (String key : chunk) {
            ids.add(ObjectIdentifier.builder().key(key).build());
        }
        Delete delete = Delete.builder().objects(ids).quiet(true).build();
        return call(Operation.DELETE, null, () -> client.deleteObjects(r -> r.bucket(location.bucket()).delete(delete))
                .thenApply(response -> {
                    // DeleteObjects answers 200 even when some keys failed; the errors are in the body.
                    if (response.hasErrors() && !response.errors().isEmpty()) {
                        S3Error first = response.errors().get(0);
                        throw new ObjectStorageException(Operation.DELETE, null, response.errors().size() + " of "
                                + chunk.size() + " keys not deleted from bucket " + location.bucket() + ", first '"
                                + first.key() + "': " + first.code() + " " + first.message(), null);
                    }
                    return null;
                }));
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        List<ObjectInfo> out = new ArrayList<>();
        return listFrom(prefix, null, out).thenApply(v -> {
            out.sort(Comparator.comparing(ObjectInfo::key));
            return out;
        });
    }

    /** Pages run one after another: each needs the previous page's continuation token. */
    private CompletableFuture<Void> listFrom(String prefix, String token, List<ObjectInfo> out) {
        return call(Operation.LIST, prefix, () -> client.listObjectsV2(r -> r.bucket(location.bucket())
                        .prefix(prefix.isEmpty() ? null : prefix)
                        .maxKeys(listPageSize)
                        .continuationToken(token)))
                .thenCompose(page -> {
                    for (S3Object o : page.contents()) {
                        out.add(new ObjectInfo(o.key(), o.size()));
                    }
                    if (Boolean.TRUE.equals(page.isTruncated()) && page.nextContinuationToken() != null) {
                        return listFrom(prefix, page.nextContinuationToken(), out);
                    }
                    return CompletableFuture.completedFuture(null);
                });
    }

    @Override
    public ObjectStorageStats stats() {
        return stats;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            client.close();
            // The client has closed its connections; no quiet period is needed before stopping.
            eventLoops.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
            LOG.info("Closed S3 object storage {}: {}", location, stats);
        }
    }

    @Override
    public String toString() {
        return "S3ObjectStorage{" + location + '}';
    }

    S3Location location() {
        return location;
    }

    S3AsyncClient client() {
        return client;
    }

    /**
     * Issues one request, counts it, and turns its failure into our exception types. The request
     * is counted once however often the SDK retries it; retries are counted by S3RetryCounter.
     */
    <T> CompletableFuture<T> call(Operation operation, String key, Supplier<CompletableFuture<T>> request) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException(this + " is closed"));
        }
        stats.recordRequest(operation);
        long started = System.nanoTime();
        CompletableFuture<T> sent;
        try {
            sent = request.get();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        sent.whenComplete((value, error) -> {
            if (error == null) {
                stats.recordLatency(operation, System.nanoTime() - started);
                result.complete(value);
            } else {
                stats.recordFailure(operation);
                result.completeExceptionally(translate(operation, key, error));
            }
        });
        return result;
    }

    private RuntimeException translate(Operation operation, String key, Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof ObjectStorageException e) {
            return e;
        }
        if (cause instanceof S3Exception s3) {
            AwsErrorDetails details = s3.awsErrorDetails();
            String code = details == null ? null : details.errorCode();
            int status = s3.statusCode();
            boolean keyLookup = operation == Operation.GET || operation == Operation.HEAD;
            // HEAD answers have no body, so a missing key there is a bare 404. A missing bucket
            // is a configuration error, not a missing object.
            if ("NoSuchKey".equals(code) || status == 404 && keyLookup && (code == null || code.isEmpty()
                    || "NotFound".equals(code))) {
                return new ObjectNotFoundException(operation, key, s3);
            }
            String message = details == null ? s3.getMessage() : details.errorMessage();
            return new ObjectStorageException(operation, key, "HTTP " + status + " " + (code == null ? "" : code)
                    + ": " + message + " (bucket " + location.bucket() + ")", s3);
        }
        return new ObjectStorageException(operation, key, String.valueOf(cause.getMessage())
                + " (bucket " + location.bucket() + ")", cause);
    }

    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static void checkKey(String key) {
        Objects.requireNonNull(key, "key");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("object key must not be empty");
        }
    }

    static void checkRange(long start, long endExclusive) {
        if (start < 0 || endExclusive < start) {
            throw new IllegalArgumentException("invalid range [" + start + ", " + endExclusive + ")");
        }
        if (endExclusive - start > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("range [" + start + ", " + endExclusive
                    + ") is too long for one buffer; read it in smaller ranges");
        }
    }
}
