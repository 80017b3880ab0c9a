package io.aloft.stream.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Argument checks and the copying fallback of {@link ObjectStorage#getParts}. Stateless.
 */
final class PartSizes {
    private PartSizes() {
    }

    /**
     * The parts' total size.
     *
     * @throws IllegalArgumentException if {@code start} or a size is negative, or the total is
     *     2 GiB or more
     */
    static long total(long start, int[] partSizes) {
        if (start < 0) {
            throw new IllegalArgumentException("invalid range start " + start);
        }
        long total = 0;
        for (int size : partSizes) {
            if (size < 0) {
                throw new IllegalArgumentException("negative part size " + size);
            }
            total += size;
        }
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("parts of " + total + " bytes are too long for one read; split it");
        }
        return total;
    }

    /**
     * Copies {@code whole}'s remaining bytes (not moved) into one exactly-sized buffer per part;
     * a short {@code whole} leaves the last parts short or empty.
     */
    static List<ByteBuffer> split(ByteBuffer whole, int[] partSizes) {
        List<ByteBuffer> parts = new ArrayList<>(partSizes.length);
        int at = whole.position();
        for (int size : partSizes) {
            int n = Math.max(0, Math.min(size, whole.limit() - at));
            ByteBuffer part = ByteBuffer.allocate(n);
            part.put(0, whole, at, n);
            parts.add(part);
            at += n;
        }
        return parts;
    }
}
