package io.aloft.wal;

import java.util.NoSuchElementException;

/** A growable circular array of longs with indexed reads, to avoid boxing. Not thread-safe. */
final class LongDeque {
    private long[] items = new long[64];
    private int head;
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void addLast(long value) {
        if (size == items.length) {
            long[] grown = new long[items.length * 2];
            for (int i = 0; i < size; i++) {
                grown[i] = get(i);
            }
            items = grown;
            head = 0;
        }
        items[(head + size) % items.length] = value;
        size++;
    }

    long get(int index) {
        if (index < 0 || index >= size) {
            throw new NoSuchElementException("index " + index + " of " + size);
        }
        return items[(head + index) % items.length];
    }

    void setLast(long value) {
        if (size == 0) {
            throw new NoSuchElementException("empty");
        }
        items[(head + size - 1) % items.length] = value;
    }

    long peekFirst() {
        return get(0);
    }

    long peekLast() {
        return get(size - 1);
    }

    long removeFirst() {
        long v = get(0);
        head = (head + 1) % items.length;
        size--;
        return v;
    }
}
