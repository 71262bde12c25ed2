package io.mfusim;

/**
 * What {@link Plan#plan} searches beyond the model ({@link Options}) and the workload ({@link Serving}):
 * {@code new PlanRequest()} holds the library's defaults (mfusim_plan_request_init). Empty lists take the library's
 * (GPUs H100, H200, B200; TP 1, 2, 4, 8; decode batches 1..256 doubling); a limit of 0 is none.
 */
public final class PlanRequest {
    /** GPU names or profile paths, at most 64. */
    public String[] gpus = new String[0];
    /** Tensor-parallel degrees 1..65536 (with {@link #disagg} also GPUs per worker), at most 64. */
    public long[] tpList = new long[0];
    /** The largest concurrency tried (powers of two from 1), 1..2^20. */
    public long maxConcurrency;
    /** Mean TTFT limit in ms; 0: none. */
    public double maxTtftMs;
    /** Mean TPOT limit in ms; 0: none. */
    public double maxTpotMs;
    /** Most GPUs of one deployment; 0: none (with {@link #disagg}: 16). */
    public long gpuBudget;
    /** Answer each point by the simulated benchmark (docs/simulate.md). */
    public boolean simulate;
    /** Also search disaggregated deployments (roofline mode only). */
    public boolean disagg;
    /** With {@link #disagg}: requests per decode replica, 1..65536. */
    public long[] decodeBatches = new long[0];
    /** With {@link #disagg} and {@link #simulate}: the least-loaded router instead of round-robin. */
    public boolean leastLoadedRouter;

    /** The library's defaults. */
    public PlanRequest() {
        NativeLibrary.load();
        io.mfusim.swig.PlanRequest d = new io.mfusim.swig.PlanRequest();
        try {
            maxConcurrency = d.getMax_concurrency();
            maxTtftMs = d.getMax_ttft_ms();
            maxTpotMs = d.getMax_tpot_ms();
            gpuBudget = d.getGpu_budget();
            simulate = d.getSimulate() != 0;
            disagg = d.getDisagg() != 0;
            leastLoadedRouter = d.getLeast_loaded_router() != 0;
        } finally {
            d.delete();
        }
    }

    /** Fluent setters, for {@code new PlanRequest().gpus("H100", "H200").maxTpotMs(20)}. */
    public PlanRequest gpus(String... v) { gpus = v; return this; }
    public PlanRequest tpList(long... v) { tpList = v; return this; }
    public PlanRequest maxConcurrency(long v) { maxConcurrency = v; return this; }
    public PlanRequest maxTtftMs(double v) { maxTtftMs = v; return this; }
    public PlanRequest maxTpotMs(double v) { maxTpotMs = v; return this; }
    public PlanRequest gpuBudget(long v) { gpuBudget = v; return this; }
    public PlanRequest simulate(boolean v) { simulate = v; return this; }
    public PlanRequest disagg(boolean v) { disagg = v; return this; }
    public PlanRequest decodeBatches(long... v) { decodeBatches = v; return this; }
    public PlanRequest leastLoadedRouter(boolean v) { leastLoadedRouter = v; return this; }

    /** A SWIG request struct with the scalar fields (the lists travel as arguments); the caller deletes it. */
    io.mfusim.swig.PlanRequest toNative() {
        io.mfusim.swig.PlanRequest r = new io.mfusim.swig.PlanRequest();
        r.setMax_concurrency(maxConcurrency);
        r.setMax_ttft_ms(maxTtftMs);
        r.setMax_tpot_ms(maxTpotMs);
        r.setGpu_budget(gpuBudget);
        r.setSimulate(simulate ? 1 : 0);
        r.setDisagg(disagg ? 1 : 0);
        r.setLeast_loaded_router(leastLoadedRouter ? 1 : 0);
        return r;
    }
}
