package io.aloft.broker.metrics;

import io.aloft.metrics.CostConfig;
import io.aloft.stream.storage.ObjectStorageStats;
import io.aloft.stream.storage.ObjectStorageStats.Operation;

/**
 * The arithmetic of the estimated object storage bill: requests priced by S3's request classes,
 * stored bytes by the GB-month. Estimates only: what a provider bills also depends on free tiers,
 * volume discounts, retried requests (S3 bills those that reach it; they are not counted here),
 * early-deletion minimums of other storage classes, and data transfer, none of which is modelled.
 *
 * <p>Immutable and thread-safe.
 */
public final class ObjectStorageCost {

    /** Bytes in the GB that S3's storage prices are per (a binary gigabyte). */
    static final double BYTES_PER_GB = 1024.0 * 1024 * 1024;

    /** How S3 prices a request. */
    enum PriceClass {
        /** PUT, COPY, POST and LIST requests. */
        PUT,
        /** GET and every other request not free. */
        GET,
        /** DELETE and CANCEL requests. */
        FREE
    }

    private final CostConfig prices;

    public ObjectStorageCost(CostConfig prices) {
        this.prices = prices;
    }

    /** The request class S3 bills an operation under. */
    static PriceClass priceClass(Operation operation) {
        return switch (operation) {
            case PUT, LIST, MULTIPART_CREATE, MULTIPART_PART, MULTIPART_COMPLETE -> PriceClass.PUT;
            case GET, HEAD -> PriceClass.GET;
            case DELETE, MULTIPART_ABORT -> PriceClass.FREE;
        };
    }

    /** USD per request of this operation. */
    double perRequestUsd(Operation operation) {
        return switch (priceClass(operation)) {
            case PUT -> prices.putPer1000Usd() / 1000;
            case GET -> prices.getPer1000Usd() / 1000;
            case FREE -> 0;
        };
    }

    /** Estimated USD of every request counted so far (retried attempts not included). */
    public double requestsUsd(ObjectStorageStats stats) {
        double usd = 0;
        for (Operation operation : Operation.values()) {
            usd += stats.requests(operation) * perRequestUsd(operation);
        }
        return usd;
    }

    /** Estimated USD per month of keeping {@code bytes} stored. */
    public double storageUsdPerMonth(double bytes) {
        return bytes / BYTES_PER_GB * prices.storageGbMonthUsd();
    }
}
