package io.mfusim;

/**
 * A closed-loop serving workload: {@code concurrency} clients each keep one request of {@code inputLen} prompt
 * tokens and {@code outputLen} generated tokens in flight, served with aggregated in-flight batching.
 * {@code new Serving()} holds the library's defaults; a 0 in the last three fields means the engine's default.
 */
public final class Serving {
    /** Prompt tokens per request (ISL). */
    public long inputLen;
    /** Generated tokens per request (OSL), at least 1. */
    public long outputLen;
    /** Requests held in flight by the clients. */
    public long concurrency;
    /** Scheduler token budget per step; 0: the engine's default. */
    public long maxBatchedTokens;
    /** Most requests running at once; 0: the engine's default. */
    public long maxSeqs;
    /** Share of GPU memory the engine may use (weights + KV); 0: the engine's default. */
    public double gpuMemoryUtilization;
    /** 0: steady state; k >= 1: means over k requests per client, the first wave (all at once) included. */
    public double requestsPerClient;

    /** The library's defaults (mfusim_serving_init). */
    public Serving() {
        NativeLibrary.load();
        io.mfusim.swig.Serving d = new io.mfusim.swig.Serving();
        try {
            inputLen = d.getInput_len();
            outputLen = d.getOutput_len();
            concurrency = d.getConcurrency();
            maxBatchedTokens = d.getMax_batched_tokens();
            maxSeqs = d.getMax_seqs();
            gpuMemoryUtilization = d.getGpu_memory_utilization();
            requestsPerClient = d.getRequests_per_client();
        } finally {
            d.delete();
        }
    }

    /** Fluent setters, for {@code new Serving().inputLen(2048).concurrency(64)}. */
    public Serving inputLen(long v) { inputLen = v; return this; }
    public Serving outputLen(long v) { outputLen = v; return this; }
    public Serving concurrency(long v) { concurrency = v; return this; }
    public Serving maxBatchedTokens(long v) { maxBatchedTokens = v; return this; }
    public Serving maxSeqs(long v) { maxSeqs = v; return this; }
    public Serving gpuMemoryUtilization(double v) { gpuMemoryUtilization = v; return this; }
    public Serving requestsPerClient(double v) { requestsPerClient = v; return this; }

    /** A SWIG serving struct filled from these; the caller deletes it. */
    io.mfusim.swig.Serving toNative() {
        io.mfusim.swig.Serving s = new io.mfusim.swig.Serving();
        s.setInput_len(inputLen);
        s.setOutput_len(outputLen);
        s.setConcurrency(concurrency);
        s.setMax_batched_tokens(maxBatchedTokens);
        s.setMax_seqs(maxSeqs);
        s.setGpu_memory_utilization(gpuMemoryUtilization);
        s.setRequests_per_client(requestsPerClient);
        return s;
    }
}
