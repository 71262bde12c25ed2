package io.mfusim;

/**
 * A disaggregated serving workload (docs/disagg.md): {@code prefillWorkers} workers compute the prompts,
 * {@code decodeWorkers} workers generate the tokens, and each request's KV cache moves from one pool to the other,
 * while {@code concurrency} clients each keep one request of {@code inputLen} prompt tokens and {@code outputLen}
 * generated tokens in flight. {@code new DisaggServing()} holds the library's defaults; a 0 in the last four fields
 * means the engine's default.
 */
public final class DisaggServing {
    /** Prompt tokens per request (ISL). */
    public long inputLen;
    /** Generated tokens per request (OSL), at least 1. */
    public long outputLen;
    /** Requests held in flight by the clients. */
    public long concurrency;
    /** Workers of the prefill pool, at least 1. */
    public long prefillWorkers;
    /** Workers of the decode pool, at least 1. */
    public long decodeWorkers;
    /** Most prompts per prefill batch of an attention replica; 0: as many as the token budget admits. */
    public long prefillBatch;
    /** Most requests an attention replica decodes at once; 0: the engine's max_seqs. */
    public long decodeBatch;
    /** The prefill workers' token budget; 0: the engine's default. */
    public long maxBatchedTokens;
    /** Share of GPU memory the engines may use; 0: their default. */
    public double gpuMemoryUtilization;

    /** The library's defaults (mfusim_disagg_serving_init). */
    public DisaggServing() {
        NativeLibrary.load();
        io.mfusim.swig.DisaggServing d = new io.mfusim.swig.DisaggServing();
        try {
            inputLen = d.getInput_len();
            outputLen = d.getOutput_len();
            concurrency = d.getConcurrency();
            prefillWorkers = d.getPrefill_workers();
            decodeWorkers = d.getDecode_workers();
            prefillBatch = d.getPrefill_batch();
            decodeBatch = d.getDecode_batch();
            maxBatchedTokens = d.getMax_batched_tokens();
            gpuMemoryUtilization = d.getGpu_memory_utilization();
        } finally {
            d.delete();
        }
    }

    /** Fluent setters, for {@code new DisaggServing().inputLen(2048).prefillWorkers(2)}. */
    public DisaggServing inputLen(long v) { inputLen = v; return this; }
    public DisaggServing outputLen(long v) { outputLen = v; return this; }
    public DisaggServing concurrency(long v) { concurrency = v; return this; }
    public DisaggServing prefillWorkers(long v) { prefillWorkers = v; return this; }
    public DisaggServing decodeWorkers(long v) { decodeWorkers = v; return this; }
    public DisaggServing prefillBatch(long v) { prefillBatch = v; return this; }
    public DisaggServing decodeBatch(long v) { decodeBatch = v; return this; }
    public DisaggServing maxBatchedTokens(long v) { maxBatchedTokens = v; return this; }
    public DisaggServing gpuMemoryUtilization(double v) { gpuMemoryUtilization = v; return this; }

    /** A SWIG disaggregated serving struct filled from these; the caller deletes it. */
    io.mfusim.swig.DisaggServing toNative() {
        io.mfusim.swig.DisaggServing s = new io.mfusim.swig.DisaggServing();
        s.setInput_len(inputLen);
        s.setOutput_len(outputLen);
        s.setConcurrency(concurrency);
        s.setPrefill_workers(prefillWorkers);
        s.setDecode_workers(decodeWorkers);
        s.setPrefill_batch(prefillBatch);
        s.setDecode_batch(decodeBatch);
        s.setMax_batched_tokens(maxBatchedTokens);
        s.setGpu_memory_utilization(gpuMemoryUtilization);
        return s;
    }
}
