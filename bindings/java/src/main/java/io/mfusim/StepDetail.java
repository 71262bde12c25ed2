package io.mfusim;

/** A step time with its breakdown by operation and the provenance of each efficiency value. Immutable. */
public final class StepDetail {
    /** One operation's share of the step. */
    public record Op(String name, double timeUs, double flops, double bytes, double efficiency, double distance,
                     String bound, String source, String table) {}

    private final double totalUs;
    private final String bound;
    private final Op[] ops;

    StepDetail(double totalUs, String bound, Op[] ops) {
        this.totalUs = totalUs;
        this.bound = bound;
        this.ops = ops;
    }

    /** Total step time in microseconds. */
    public double totalUs() {
        return totalUs;
    }

    /** The bound of the operation that took the most time ("compute", "memory", ...). */
    public String bound() {
        return bound;
    }

    /**
     * Number of operations: the library's {@code n_ops} valid entries ({@code MFUSIM_OP_COUNT} as the library
     * knows it, at most {@code MFUSIM_OP_CAPACITY}).
     */
    public int opCount() {
        return ops.length;
    }

    /** Operation {@code i}, {@code 0 <= i < opCount()} (the C enum's order, e.g. 0 = qkv_proj). */
    public Op op(int i) {
        return ops[i];
    }
}
