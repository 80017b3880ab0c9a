package io.aloft.broker.coordinator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal coordinator for the runtime's tests: a key-value map per partition, written with
 * records that are replayed (the model new coordinators follow). It checks the runtime's promise
 * itself: every call must come from one thread at a time, and after loading from the shard's thread.
 */
final class KvShard implements CoordinatorShard<KvShard.Put> {

    /** The record: a key's new value (null removes it). */
    record Put(String key, String value) {
    }

    static final CoordinatorRecordSerde<Put> SERDE = new CoordinatorRecordSerde<>() {
        @Override
        public byte[] key(Put record) {
            return record.key().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public byte[] value(Put record) {
            return record.value() == null ? null : record.value().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Put decode(byte[] key, byte[] value) {
            return new Put(new String(key, StandardCharsets.UTF_8),
                    value == null ? null : new String(value, StandardCharsets.UTF_8));
        }
    };

    final ShardContext<Put> ctx;
    final Map<String, String> state = new TreeMap<>();
    final List<String> events = new ArrayList<>();
    /** Threads that ran operations after loading (must be one, the shard's). */
    final List<String> threads = new ArrayList<>();
    private final AtomicInteger inside = new AtomicInteger();
    volatile boolean overlapped;
    volatile boolean unloaded;

    KvShard(ShardContext<Put> ctx) {
        this.ctx = ctx;
    }

    /** Marks an operation's start and end, noting any overlap with another call. */
    void enter() {
        if (inside.incrementAndGet() != 1) {
            overlapped = true;
        }
        String t = Thread.currentThread().getName();
        if (!threads.contains(t)) {
            threads.add(t);
        }
    }

    void exit() {
        inside.decrementAndGet();
    }

    @Override
    public void replay(Put record) {
        if (record.value() == null) {
            state.remove(record.key());
        } else {
            state.put(record.key(), record.value());
        }
        events.add("replay " + record.key());
    }

    @Override
    public void onLoaded() {
        enter();
        events.add("loaded");
        exit();
    }

    @Override
    public void onUnloaded() {
        enter();
        unloaded = true;
        events.add("unloaded");
        exit();
    }

    /** A write the runtime applies through {@link #replay} once durable; responds with the old value. */
    CoordinatorResult<String, Put> put(String key, String value) {
        enter();
        try {
            return CoordinatorResult.of(List.of(new Put(key, value)), state.get(key));
        } finally {
            exit();
        }
    }

    String get(String key) {
        enter();
        try {
            return state.get(key);
        } finally {
            exit();
        }
    }
}
