package io.mfusim;

import io.mfusim.swig.MfusimNative;
import java.util.ArrayList;
import java.util.List;

/**
 * The deployment search of {@code mfusim plan} as data ({@code mfusim_plan}; docs/c-api.md), copied out of the
 * native result, which is freed at once: a plain immutable Java value.
 */
public final class Plan {
    /**
     * One deployment evaluated ({@code mfusim_plan_row}): aggregated ({@code tp}, {@code ep}) or, when
     * {@code disaggregated}, a prefill and a decode pool of workers ({@code prefill*}, {@code decode*}; 0 otherwise).
     */
    public record Row(int gpuIndex, boolean disaggregated, boolean meetsLimits, boolean best, long tp, long ep,
            long gpus, long concurrency, long prefillWorkers, long prefillTp, long prefillEp,
            long prefillAttentionDp, long decodeWorkers, long decodeTp, long decodeEp, long decodeAttentionDp,
            long decodeBatch, double ttftMs, double tpotMs, double outputTokSGpu, double outputTokSUser) {}

    /**
     * What the search did on one GPU of the request ({@code mfusim_plan_gpu}); {@code bestRow} indexes
     * {@link #rows()}, -1 when nothing meets the limits; {@code lastSkip} why the last skipped deployment was
     * skipped ("" when none).
     */
    public record Gpu(String name, long evaluated, long meetingLimits, long bestRow, long skippedNotFitting,
            long skippedInvalid, String lastSkip) {}

    private final List<Row> rows;
    private final List<Gpu> gpus;
    private final List<String> warnings;

    static {
        NativeLibrary.load();
    }

    private Plan(List<Row> rows, List<Gpu> gpus, List<String> warnings) {
        this.rows = List.copyOf(rows);
        this.gpus = List.copyOf(gpus);
        this.warnings = List.copyOf(warnings);
    }

    /**
     * Searches deployments as {@code mfusim plan} does (the rows of its {@code --json}, in its order).
     *
     * @param options the model, engine, quantization and mode; its GPU and parallelism are searched (a null GPU is
     *     fine)
     * @param serving the lengths and engine limits; its concurrency is searched
     * @param request the GPUs, TP degrees, largest concurrency, limits and the disaggregated search
     * @return every deployment evaluated; deployments that do not fit are counted in {@link #gpus()}, not thrown
     * @throws MfusimException UNKNOWN_NAME for an unknown model or GPU, INVALID_ARGUMENT naming a field out of range
     */
    public static Plan plan(Options options, Serving serving, PlanRequest request) {
        for (String g : request.gpus) Options.noNul(java.util.Objects.requireNonNull(g, "gpus entry"), "gpus");
        io.mfusim.swig.Options o = options.toNative();
        io.mfusim.swig.Serving s = serving.toNative();
        io.mfusim.swig.PlanRequest r = request.toNative();
        try {
            if (o.getGpu() == null) o.setGpu("H100"); // searched: any name passes the options' own check
            io.mfusim.swig.PlanResult raw =
                    MfusimNative.mfusimJavaPlan(o, s, r, request.tpList, request.decodeBatches, request.gpus);
            try {
                return copy(raw);
            } finally {
                MfusimNative.mfusimPlanResultFree(raw);
            }
        } finally {
            o.delete();
            s.delete();
            r.delete();
        }
    }

    private static Plan copy(io.mfusim.swig.PlanResult raw) {
        List<Row> rows = new ArrayList<>();
        for (long i = 0, n = MfusimNative.mfusimJavaPlanRowCount(raw); i < n; i++) {
            io.mfusim.swig.PlanRow c = MfusimNative.mfusimJavaPlanRow(raw, i);
            rows.add(new Row(c.getGpu_index(), c.getDisaggregated() != 0, c.getMeets_limits() != 0, c.getBest() != 0,
                    c.getTp(), c.getEp(), c.getGpus(), c.getConcurrency(), c.getPrefill_workers(), c.getPrefill_tp(),
                    c.getPrefill_ep(), c.getPrefill_attention_dp(), c.getDecode_workers(), c.getDecode_tp(),
                    c.getDecode_ep(), c.getDecode_attention_dp(), c.getDecode_batch(), c.getTtft_ms(),
                    c.getTpot_ms(), c.getOutput_tok_s_gpu(), c.getOutput_tok_s_user()));
        }
        List<Gpu> gpus = new ArrayList<>();
        for (long i = 0, n = MfusimNative.mfusimJavaPlanGpuCount(raw); i < n; i++) {
            io.mfusim.swig.PlanGpu c = MfusimNative.mfusimJavaPlanGpu(raw, i);
            gpus.add(new Gpu(MfusimNative.mfusimPlanResultGpuName(raw, i), c.getEvaluated(), c.getMeeting_limits(),
                    c.getBest_row(), c.getSkipped_not_fitting(), c.getSkipped_invalid(),
                    MfusimNative.mfusimPlanResultLastSkip(raw, i)));
        }
        return new Plan(rows, gpus, lines(MfusimNative.mfusimPlanResultWarnings(raw)));
    }

    static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty()) out.add(line);
        }
        return out;
    }

    /** Every deployment evaluated, GPU by GPU in the request's order, in {@code mfusim plan --json}'s order. */
    public List<Row> rows() {
        return rows;
    }

    /** One entry per GPU of the request, in its order. */
    public List<Gpu> gpus() {
        return gpus;
    }

    /** The best row of GPU {@code gpuIndex}, or null when none meets the limits. */
    public Row best(int gpuIndex) {
        long i = gpus.get(gpuIndex).bestRow();
        return i < 0 ? null : rows.get((int) i);
    }

    /** The estimators' load warnings. */
    public List<String> warnings() {
        return warnings;
    }
}
