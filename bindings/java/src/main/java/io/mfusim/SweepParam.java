package io.mfusim;

/**
 * The parameter a sweep varies ({@code mfusim_sweep_param}). Step sweeps vary the step ({@link #DECODE_BATCH},
 * {@link #CONTEXT}, {@link #CHUNK}), serving sweeps the workload ({@link #CONCURRENCY}, {@link #ISL},
 * {@link #OSL}); {@link #TP}, {@link #GPU} and {@link #MODEL} go with either.
 */
public enum SweepParam {
    DECODE_BATCH(0), CONTEXT(1), CHUNK(2), CONCURRENCY(3), ISL(4), OSL(5), TP(6), GPU(7), MODEL(8);

    private final int code;

    SweepParam(int code) {
        this.code = code;
    }

    /** The C number. */
    public int code() {
        return code;
    }

    static SweepParam of(int code) {
        for (SweepParam p : values()) {
            if (p.code == code) return p;
        }
        return null;
    }
}
