package io.mfusim;

import io.mfusim.swig.MfusimNative;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A loaded, immutable model on a GPU: the step-time oracle a simulator calls once per step.
 *
 * <p><b>Threading.</b> Every method except {@link #close()} may be called from many threads at once: the C library
 * guarantees that a loaded estimator is immutable, lock-free and keeps no thread-local state. {@code close()} must
 * not race with calls in flight; it is idempotent, and calls after it throw {@link IllegalStateException}. A
 * {@link Cleaner} frees estimators that were never closed, as a backstop only: use try-with-resources.
 *
 * <p><b>Hot path.</b> {@link #stepTime(Requests)} and {@link #stepTimeBatch} pass the requests' packed
 * {@code long[]} (and the outputs' {@code double[]}) to C pinned, without copying, and allocate nothing.
 */
public final class Estimator implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Owns the native handle; run once, by close() or by the cleaner. */
    private static final class Handle implements Runnable {
        volatile io.mfusim.swig.Estimator raw;

        Handle(io.mfusim.swig.Estimator raw) {
            this.raw = raw;
        }

        @Override
        public synchronized void run() {
            io.mfusim.swig.Estimator r = raw;
            raw = null;
            if (r != null) MfusimNative.mfusimEstimatorFree(r);
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;

    static {
        NativeLibrary.load();
    }

    /** Parses the model and GPU and loads the tables. Reads files: build once, query many times. */
    public Estimator(Options options) {
        io.mfusim.swig.Options o = options.toNative();
        try {
            handle = new Handle(MfusimNative.mfusimJavaCreate(o));
        } finally {
            o.delete();
        }
        cleanable = CLEANER.register(this, handle);
    }

    private io.mfusim.swig.Estimator raw() {
        io.mfusim.swig.Estimator r = handle.raw;
        if (r == null) throw new IllegalStateException("the estimator is closed");
        return r;
    }

    /** Frees the native estimator. Idempotent. */
    @Override
    public void close() {
        cleanable.clean();
    }

    /** Messages produced while loading that did not stop it, one per line; "" if none. */
    public String loadWarnings() {
        try {
            return MfusimNative.mfusimEstimatorLoadWarnings(raw());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The time of one engine step in microseconds. An empty step gives the engine's fixed per-step overhead in
     * roofline mode, and 0 in compat mode (InferSim has no step without work). Allocation-free.
     */
    public double stepTime(Requests requests) {
        try {
            return MfusimNative.mfusimJavaStepTime(raw(), requests.packed(), requests.size());
        } finally {
            Reference.reachabilityFence(this); // the cleaner must not free the handle during the call
        }
    }

    /**
     * Many steps in one call: step i is the next {@code stepSizes[i]} requests of {@code requests}; its time goes
     * to {@code out[i]}. The step sizes must add up to {@code requests.size()} exactly (the library checks it), and
     * {@code out} must have at least {@code stepSizes.length} slots. On failure {@code out} is untouched and the
     * message names the step. Allocation-free.
     */
    public void stepTimeBatch(Requests requests, long[] stepSizes, double[] out) {
        try {
            MfusimNative.mfusimJavaStepTimeBatch(raw(), requests.packed(), requests.size(), stepSizes, out);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The step time with its breakdown by operation: the library's {@code n_ops} valid entries (allocates the
     * result).
     */
    public StepDetail stepDetail(Requests requests) {
        io.mfusim.swig.StepResult r = new io.mfusim.swig.StepResult();
        try {
            MfusimNative.mfusimJavaStepDetail(raw(), requests.packed(), requests.size(), r);
            StepDetail.Op[] ops = new StepDetail.Op[Math.max(0, r.getN_ops())];
            for (int i = 0; i < ops.length; i++) {
                io.mfusim.swig.OpDetail d = r.op(i); // null only past the struct's slots: never trust n_ops blindly
                if (d == null) {
                    ops = java.util.Arrays.copyOf(ops, i);
                    break;
                }
                ops[i] = new StepDetail.Op(MfusimNative.mfusimOpName(i), d.getTime_us(), d.getFlops(), d.getBytes(),
                        d.getEfficiency(), d.getDistance(), MfusimNative.mfusimBoundName(d.getBound()),
                        MfusimNative.mfusimSourceName(d.getSource()), d.getTable());
            }
            return new StepDetail(r.getTotal_us(), MfusimNative.mfusimBoundName(r.getBound()), ops);
        } finally {
            r.delete();
            Reference.reachabilityFence(this);
        }
    }

    /** Evaluates a TTFT / TPOT scenario. */
    public Report estimate(Scenario scenario) {
        io.mfusim.swig.Scenario s = scenario.toNative();
        io.mfusim.swig.Report r;
        try {
            r = MfusimNative.mfusimJavaEstimate(raw(), s);
        } finally {
            s.delete();
            Reference.reachabilityFence(this);
        }
        try {
            Map<String, Double> values = new LinkedHashMap<>();
            long n = MfusimNative.mfusimReportCount(r);
            for (long i = 0; i < n; i++) {
                values.put(MfusimNative.mfusimReportName(r, i), MfusimNative.mfusimReportValueAt(r, i));
            }
            return new Report(values, MfusimNative.mfusimReportWarnings(r), MfusimNative.mfusimReportSoftErrors(r));
        } finally {
            MfusimNative.mfusimReportFree(r);
        }
    }

    /**
     * The steady-state TTFT, TPOT and throughput of a closed-loop serving workload, from this estimator's own step
     * times. Roofline mode only ({@link Status#UNSUPPORTED} in compat mode). Safe from many threads.
     */
    public ServingResult servingEstimate(Serving serving) {
        io.mfusim.swig.Serving w = serving.toNative();
        io.mfusim.swig.ServingResult r = new io.mfusim.swig.ServingResult();
        try {
            MfusimNative.mfusimJavaServingEstimate(raw(), w, r);
            return new ServingResult(r.getTtft_ms(), r.getTpot_ms(), r.getE2e_ms(),
                    r.getOutput_throughput_tok_s_gpu(), r.getRequest_throughput_req_s(), r.getDecode_step_ms(),
                    r.getMixed_step_ms(), r.getMixed_step_fraction(), r.getDecode_batch(),
                    r.getPrefill_tokens_per_mixed_step(), r.getPrefill_steps_per_request(), r.getQueue_ms(),
                    r.getRunning_requests(), r.getKv_capacity_tokens(), ServingResult.Limit.of(r.getLimited_by()));
        } finally {
            w.delete();
            r.delete();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Disaggregated serving ({@code mfusim_disagg_estimate}, docs/disagg.md): {@code prefill} describes one worker of
     * the prefill pool and {@code decode} one of the decode pool (the same model and GPU; each its own tensor,
     * expert and attention data parallelism; the same estimator may be both). Both in roofline mode (else
     * {@link Status#UNSUPPORTED}) on the same GPU (else {@link Status#CONFIG}); a bad field throws
     * {@link MfusimException} ({@link Status#INVALID_ARGUMENT}) naming it. Safe from many threads.
     */
    public static DisaggResult disaggEstimate(Estimator prefill, Estimator decode, DisaggServing serving) {
        io.mfusim.swig.DisaggServing w = serving.toNative();
        io.mfusim.swig.DisaggResult r = new io.mfusim.swig.DisaggResult();
        try {
            MfusimNative.mfusimJavaDisaggEstimate(prefill.raw(), decode.raw(), w, r);
            return new DisaggResult(r);
        } finally {
            w.delete();
            r.delete();
            Reference.reachabilityFence(prefill);
            Reference.reachabilityFence(decode);
        }
    }

    /**
     * Simulates a serving benchmark against this deployment, step by step, with this estimator's own step times
     * (docs/simulate.md). Roofline mode only ({@link Status#UNSUPPORTED} in compat mode). Deterministic: the same
     * simulation gives the same result; a bad field throws {@link MfusimException} naming it. Safe from many threads.
     */
    public SimulationResult simulate(Simulation simulation) {
        io.mfusim.swig.Simulation s = simulation.toNative();
        try {
            return new SimulationResult(MfusimNative.mfusimJavaSimulate(raw(), s, simulation.trace));
        } finally {
            s.delete();
            Reference.reachabilityFence(this);
        }
    }

    /** The version of the native library loaded ("1.0.0"). */
    public static String version() {
        NativeLibrary.load();
        return MfusimNative.mfusimVersionString();
    }

    /** MAJOR*10000 + MINOR*100 + PATCH of the native library loaded. */
    public static long versionNumber() {
        NativeLibrary.load();
        return MfusimNative.mfusimVersionNumber();
    }

    /** The built-in model catalogue. */
    public static List<String> models() {
        NativeLibrary.load();
        List<String> names = new ArrayList<>();
        for (long i = 0, n = MfusimNative.mfusimCatalogueModelCount(); i < n; i++) {
            names.add(MfusimNative.mfusimCatalogueModelName(i));
        }
        return names;
    }

    /** The built-in GPU profiles. */
    public static List<String> gpus() {
        NativeLibrary.load();
        List<String> names = new ArrayList<>();
        for (long i = 0, n = MfusimNative.mfusimCatalogueGpuCount(); i < n; i++) {
            names.add(MfusimNative.mfusimCatalogueGpuName(i));
        }
        return names;
    }
}
