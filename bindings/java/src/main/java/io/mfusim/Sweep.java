package io.mfusim;

import io.mfusim.swig.MfusimNative;
import java.util.ArrayList;
import java.util.List;

/**
 * The sweep of {@code mfusim sweep} as data ({@code mfusim_sweep}; docs/c-api.md), copied out of the native result,
 * which is freed at once: a plain immutable Java value.
 */
public final class Sweep {
    /**
     * One point ({@code mfusim_sweep_row}): {@code varyIndex} and {@code seriesIndex} into the request's values;
     * {@code ok} false for a point the library refused ({@code error} says why, the metrics 0); {@code stepMs} for
     * step sweeps, the serving metrics for serving sweeps; {@code detail} what bounded the step or limited the
     * running requests.
     */
    public record Row(int varyIndex, int seriesIndex, boolean ok, double stepMs, double ttftMs, double tpotMs,
            double outputTokSGpu, double e2eMs, double requestThroughputReqS, String detail, String error) {}

    private final List<Row> rows;
    private final List<String> warnings;

    static {
        NativeLibrary.load();
    }

    private Sweep(List<Row> rows, List<String> warnings) {
        this.rows = List.copyOf(rows);
        this.warnings = List.copyOf(warnings);
    }

    /**
     * Evaluates every point as {@code mfusim sweep} does (series-major: every x of the first series value, then the
     * next).
     *
     * @param options the deployment every point starts from (a varied GPU, model or TP replaces its own)
     * @param serving the workload of a serving sweep
     * @param request the varied parameter and values, the series, the step
     * @throws MfusimException INVALID_ARGUMENT naming the field for a request mixing step and serving parameters or
     *     a value out of its bound; a point the library refuses is a row with {@code ok} false, not a throw
     */
    public static Sweep sweep(Options options, Serving serving, SweepRequest request) {
        for (String v : request.varyValues) Options.noNul(java.util.Objects.requireNonNull(v, "varyValues entry"), "varyValues");
        for (String v : request.seriesValues) Options.noNul(java.util.Objects.requireNonNull(v, "seriesValues entry"), "seriesValues");
        io.mfusim.swig.Options o = options.toNative();
        io.mfusim.swig.Serving s = serving.toNative();
        io.mfusim.swig.SweepRequest r = request.toNative();
        try {
            io.mfusim.swig.SweepResult raw = MfusimNative.mfusimJavaSweep(o, s, r, request.varyValues,
                    request.series == null ? new String[0] : request.seriesValues);
            try {
                List<Row> rows = new ArrayList<>();
                for (long i = 0, n = MfusimNative.mfusimJavaSweepRowCount(raw); i < n; i++) {
                    io.mfusim.swig.SweepRow c = MfusimNative.mfusimJavaSweepRow(raw, i);
                    rows.add(new Row(c.getVary_index(), c.getSeries_index(), c.getOk() != 0, c.getStep_ms(),
                            c.getTtft_ms(), c.getTpot_ms(), c.getOutput_tok_s_gpu(), c.getE2e_ms(),
                            c.getRequest_throughput_req_s(), MfusimNative.mfusimSweepResultDetail(raw, i),
                            MfusimNative.mfusimSweepResultError(raw, i)));
                }
                return new Sweep(rows, Plan.lines(MfusimNative.mfusimSweepResultWarnings(raw)));
            } finally {
                MfusimNative.mfusimSweepResultFree(raw);
            }
        } finally {
            o.delete();
            s.delete();
            r.delete();
        }
    }

    /** Every point, series-major. */
    public List<Row> rows() {
        return rows;
    }

    /** The estimators' load warnings. */
    public List<String> warnings() {
        return warnings;
    }
}
