package io.mfusim;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A reusable batch of requests, stored as the C library reads them: 3 longs per request (new tokens, cached
 * context, flags), the exact 24-byte layout of {@code mfusim_request}. The array is handed to C pinned, never
 * copied; {@link #clear()} and refill it for every step, so a simulator allocates nothing per step.
 *
 * <p>Not thread-safe (it is a mutable buffer); give each thread its own.
 */
public final class Requests {
    /** Request flag: a prefill chunk that is not the prompt's last produces no token. */
    public static final int NO_OUTPUT = 1;

    static final int LONGS_PER_REQUEST = 3;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private long[] packed;
    private int size;

    public Requests() {
        this(16);
    }

    public Requests(int capacity) {
        packed = new long[Math.max(1, capacity) * LONGS_PER_REQUEST];
    }

    /** Empties the batch, keeping its memory. */
    public Requests clear() {
        size = 0;
        return this;
    }

    /** Number of requests. */
    public int size() {
        return size;
    }

    /** Appends {@code newTokens} on top of {@code context} cached tokens with {@code flags}. */
    public Requests add(long newTokens, long context, int flags) {
        int at = size * LONGS_PER_REQUEST;
        if (at + LONGS_PER_REQUEST > packed.length) {
            packed = Arrays.copyOf(packed, packed.length * 2);
        }
        packed[at] = newTokens;
        packed[at + 1] = context;
        // flags is the uint32 at byte offset 16, reserved (0) at 20: one long, halves by byte order.
        packed[at + 2] = LITTLE_ENDIAN ? (flags & 0xffffffffL) : ((long) flags << 32);
        size++;
        return this;
    }

    /** Appends one decode token over {@code context} tokens of KV history. */
    public Requests addDecode(long context) {
        return add(1, context, 0);
    }

    /** Appends a prefill chunk; {@code last} says whether it is the prompt's final chunk (which produces a token). */
    public Requests addPrefill(long newTokens, long context, boolean last) {
        return add(newTokens, context, last ? 0 : NO_OUTPUT);
    }

    /** Appends all requests of another batch. */
    public Requests addAll(Requests other) {
        for (int i = 0; i < other.size; i++) {
            add(other.newTokens(i), other.context(i), other.flags(i));
        }
        return this;
    }

    public long newTokens(int i) {
        return packed[check(i) * LONGS_PER_REQUEST];
    }

    public long context(int i) {
        return packed[check(i) * LONGS_PER_REQUEST + 1];
    }

    public int flags(int i) {
        long word = packed[check(i) * LONGS_PER_REQUEST + 2];
        return (int) (LITTLE_ENDIAN ? word : word >>> 32);
    }

    private int check(int i) {
        if (i < 0 || i >= size) throw new IndexOutOfBoundsException(i);
        return i;
    }

    /** The packed array (its first {@code 3 * size()} longs are the requests). */
    long[] packed() {
        return packed;
    }
}
