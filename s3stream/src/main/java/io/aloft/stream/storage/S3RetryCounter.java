package io.aloft.stream.storage;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts the SDK's retried attempts into {@link ObjectStorageStats}. The SDK retries inside one
 * API call and reports only the final outcome, but {@code beforeTransmission} runs once per
 * attempt, so every attempt after the first is a retry. Counting here (not in a metric
 * publisher) means the count is in before the call's future completes. Thread-safe: the per-call
 * counter lives in the call's execution attributes.
 */
final class S3RetryCounter implements ExecutionInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(S3RetryCounter.class);

    private static final ExecutionAttribute<AtomicInteger> ATTEMPTS = new ExecutionAttribute<>("AloftAttempts");

    private static final Map<String, ObjectStorageStats.Operation> OPERATIONS = Map.of(
            "PutObject", ObjectStorageStats.Operation.PUT,
            "GetObject", ObjectStorageStats.Operation.GET,
            "HeadObject", ObjectStorageStats.Operation.HEAD,
            "DeleteObjects", ObjectStorageStats.Operation.DELETE,
            "ListObjectsV2", ObjectStorageStats.Operation.LIST,
            "CreateMultipartUpload", ObjectStorageStats.Operation.MULTIPART_CREATE,
            "UploadPart", ObjectStorageStats.Operation.MULTIPART_PART,
            "CompleteMultipartUpload", ObjectStorageStats.Operation.MULTIPART_COMPLETE,
            "AbortMultipartUpload", ObjectStorageStats.Operation.MULTIPART_ABORT);

    private final ObjectStorageStats stats;
    private final String bucket;

    S3RetryCounter(ObjectStorageStats stats, String bucket) {
        this.stats = stats;
        this.bucket = bucket;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        attributes.putAttribute(ATTEMPTS, new AtomicInteger());
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        AtomicInteger attempts = attributes.getAttribute(ATTEMPTS);
        if (attempts == null || attempts.incrementAndGet() == 1) {
            return;
        }
        String name = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        ObjectStorageStats.Operation operation = OPERATIONS.get(name);
        if (operation != null) {
            stats.recordRetry(operation);
        }
        LOG.debug("Retrying {} on bucket {}: attempt {}", name, bucket, attempts.get());
    }
}
