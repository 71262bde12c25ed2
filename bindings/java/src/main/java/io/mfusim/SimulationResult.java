package io.mfusim;

import io.mfusim.swig.MfusimNative;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;

/**
 * A finished simulation. The statistics and the per-request arrays are copied into Java when it is made;
 * {@link #percentile} asks the native result, which {@link #close()} frees (a cleaner frees a forgotten one).
 */
public final class SimulationResult implements AutoCloseable {
    /** The quantities {@link #percentile} answers for. */
    public enum Metric { TTFT, TPOT, ITL, E2EL, QUEUE }

    private static final Cleaner CLEANER = Cleaner.create();

    private static final class Handle implements Runnable {
        io.mfusim.swig.SimulationResult raw;

        Handle(io.mfusim.swig.SimulationResult raw) { this.raw = raw; }

        @Override
        public synchronized void run() {
            if (raw != null) {
                MfusimNative.mfusimSimulationResultFree(raw);
                raw = null;
            }
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;

    /** Measured (non-warm-up) requests. */
    public final long completed, totalInputTokens, totalOutputTokens, steps, preemptions, prefixHitTokens;
    public final double durationS, requestThroughput, requestGoodput, outputThroughput, totalTokenThroughput;
    /** Mean, median, std, p90, p95, p99, min, max of each latency in ms. */
    public final double[] ttftMsStats, tpotMsStats, itlMsStats, e2elMsStats, queueMsStats;
    /** Per request in send order, warm-up included. */
    public final double[] sendMs, ttftMs, tpotMs, e2elMs, queueMs;
    public final long[] inputLen, outputLen;
    public final boolean[] warmup;
    /** Per engine step in order when the simulation set {@code recordTimeline}; null otherwise. */
    public final double[] stepStartMs, stepDurationMs, stepKvUsed;
    public final int[] stepRunning, stepWaiting, stepPrefillTokens, stepDecodeTokens;

    SimulationResult(io.mfusim.swig.SimulationResult raw) {
        handle = new Handle(raw);
        cleanable = CLEANER.register(this, handle);
        io.mfusim.swig.SimulationSummary s = new io.mfusim.swig.SimulationSummary();
        try {
            MfusimNative.mfusimSimulationResultSummary(raw, s);
            completed = s.getCompleted();
            totalInputTokens = s.getTotal_input_tokens();
            totalOutputTokens = s.getTotal_output_tokens();
            steps = s.getSteps();
            preemptions = s.getPreemptions();
            prefixHitTokens = s.getPrefix_hit_tokens();
            durationS = s.getDuration_s();
            requestThroughput = s.getRequest_throughput();
            requestGoodput = s.getRequest_goodput();
            outputThroughput = s.getOutput_throughput();
            totalTokenThroughput = s.getTotal_token_throughput();
            ttftMsStats = stats(s.getTtft_ms());
            tpotMsStats = stats(s.getTpot_ms());
            itlMsStats = stats(s.getItl_ms());
            e2elMsStats = stats(s.getE2el_ms());
            queueMsStats = stats(s.getQueue_ms());
        } finally {
            s.delete();
        }
        int n = (int) MfusimNative.mfusimJavaSimulationRequestCount(raw);
        long[] records = new long[10 * n];
        MfusimNative.mfusimJavaSimulationRequests(raw, records);
        sendMs = new double[n];
        ttftMs = new double[n];
        tpotMs = new double[n];
        e2elMs = new double[n];
        queueMs = new double[n];
        inputLen = new long[n];
        outputLen = new long[n];
        warmup = new boolean[n];
        for (int i = 0; i < n; ++i) {
            int r = 10 * i;
            sendMs[i] = Double.longBitsToDouble(records[r]);
            ttftMs[i] = Double.longBitsToDouble(records[r + 1]);
            tpotMs[i] = Double.longBitsToDouble(records[r + 2]);
            e2elMs[i] = Double.longBitsToDouble(records[r + 3]);
            queueMs[i] = Double.longBitsToDouble(records[r + 4]);
            inputLen[i] = records[r + 5];
            outputLen[i] = records[r + 6];
            warmup[i] = (int) records[r + 9] != 0; // the low 32 bits: warmup (little-endian)
        }
        int steps = (int) MfusimNative.mfusimJavaSimulationStepCount(raw);
        if (steps == 0) {
            stepStartMs = stepDurationMs = stepKvUsed = null;
            stepRunning = stepWaiting = stepPrefillTokens = stepDecodeTokens = null;
            return;
        }
        long[] packed = new long[5 * steps];
        MfusimNative.mfusimJavaSimulationTimeline(raw, packed);
        stepStartMs = new double[steps];
        stepDurationMs = new double[steps];
        stepKvUsed = new double[steps];
        stepRunning = new int[steps];
        stepWaiting = new int[steps];
        stepPrefillTokens = new int[steps];
        stepDecodeTokens = new int[steps];
        for (int i = 0; i < steps; ++i) {
            int r = 5 * i;
            stepStartMs[i] = Double.longBitsToDouble(packed[r]);
            stepDurationMs[i] = Double.longBitsToDouble(packed[r + 1]);
            stepRunning[i] = (int) packed[r + 2]; // two int32 per long, the first in the low bits (little-endian)
            stepWaiting[i] = (int) (packed[r + 2] >>> 32);
            stepPrefillTokens[i] = (int) packed[r + 3];
            stepDecodeTokens[i] = (int) (packed[r + 3] >>> 32);
            stepKvUsed[i] = Double.longBitsToDouble(packed[r + 4]);
        }
    }

    private static double[] stats(io.mfusim.swig.LatencySummary l) {
        return new double[] {l.getMean(), l.getMedian(), l.getStd(), l.getP90(), l.getP95(), l.getP99(), l.getMin(),
                             l.getMax()};
    }

    /** The p-th percentile (0..100) of a metric in ms over the measured requests (ITL per token). */
    public double percentile(Metric metric, double p) {
        io.mfusim.swig.SimulationResult r = handle.raw;
        if (r == null) throw new IllegalStateException("the simulation result is closed");
        try {
            return MfusimNative.mfusimJavaSimulationPercentile(r, metric.ordinal(), p);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Frees the native result (idempotent). */
    @Override
    public void close() {
        cleanable.clean();
    }
}
