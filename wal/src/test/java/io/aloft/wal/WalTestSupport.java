package io.aloft.wal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/** Helpers shared by the WAL tests: deterministic record contents and config shortcuts. */
final class WalTestSupport {
    private WalTestSupport() {
    }

    static WalConfig.Builder smallConfig(Path dir) {
        return WalConfig.builder().path(dir.resolve("test.wal")).capacityBytes(1 << 20).maxBatchBytes(64 * 1024)
                .appendTimeoutMs(5_000);
    }

    /**
     * A record whose bytes are fully determined by {@code id}: 8 bytes of id, then {@code size - 8}
     * pseudo-random bytes seeded by it. {@link #idOf} and {@link #matches} check it.
     */
    static ByteBuffer record(long id, int size) {
        ByteBuffer buf = ByteBuffer.allocate(Math.max(size, 8));
        buf.putLong(0, id);
        byte[] rest = new byte[buf.capacity() - 8];
        new Random(id).nextBytes(rest);
        buf.put(8, rest);
        return buf;
    }

    static long idOf(ByteBuffer body) {
        return body.getLong(body.position());
    }

    static boolean matches(ByteBuffer body, int size) {
        return record(idOf(body), size).equals(body);
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String text(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static List<WalRecord> recoverAll(WriteAheadLog wal) {
        List<WalRecord> out = new ArrayList<>();
        for (Iterator<WalRecord> it = wal.recover(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }
}
