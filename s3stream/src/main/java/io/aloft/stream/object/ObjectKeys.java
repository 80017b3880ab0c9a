package io.aloft.stream.object;

import java.util.OptionalLong;

/**
 * Storage keys of objects: {@code HH/obj/ID}, where {@code ID} is the object id in decimal and
 * {@code HH} two lowercase hex digits of a mixed hash of the id.
 *
 * <p>Why the hash prefix: S3 scales request rates per key prefix, and ids are allocated in
 * sequence, so without it every new object would land on the same hot prefix. Why the fixed
 * depth: every key has exactly three segments and its last one is a number, so no key is ever
 * the "directory" of another ({@code a} next to {@code a/b}), which the file backend and
 * versitygw cannot store.
 *
 * <p>Stateless; thread-safe.
 */
public final class ObjectKeys {

    static final String DIRECTORY = "obj";

    private ObjectKeys() {
    }

    /**
     * The key of object {@code objectId}.
     *
     * @throws IllegalArgumentException if the id is negative (metadata never allocates one)
     */
    public static String key(long objectId) {
        if (objectId < 0) {
            throw new IllegalArgumentException("object ids are not negative, got " + objectId);
        }
        return prefix(objectId) + "/" + DIRECTORY + "/" + objectId;
    }

    /**
     * The object id of a key made by {@link #key}, or empty for any other key (so a listing can
     * tell our objects from anything else in the bucket).
     */
    public static OptionalLong objectId(String key) {
        String[] parts = key.split("/", -1);
        if (parts.length != 3 || !parts[1].equals(DIRECTORY) || parts[2].isEmpty()
                || !parts[2].chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalLong.empty();
        }
        long id;
        try {
            id = Long.parseLong(parts[2]);
        } catch (NumberFormatException e) {
            return OptionalLong.empty(); // out of range
        }
        return key(id).equals(key) ? OptionalLong.of(id) : OptionalLong.empty();
    }

    /** Two hex digits from the top byte of a 64-bit finalizer (splitmix64's), so neighbours spread. */
    static String prefix(long objectId) {
        long z = objectId;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        z = z ^ (z >>> 31);
        int b = (int) (z >>> 56);
        return String.valueOf(Character.forDigit(b >>> 4, 16)) + Character.forDigit(b & 0xF, 16);
    }
}
