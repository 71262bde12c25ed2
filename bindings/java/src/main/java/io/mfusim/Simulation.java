package io.mfusim;

/**
 * A simulated serving benchmark (mfusim_simulation; docs/simulate.md): the workload, the scheduler's overrides and
 * the goodput SLOs. {@code new Simulation()} holds the library's defaults: 1000 requests of 1024 prompt and 128
 * output tokens, all sent at once, the engine's own scheduler. Scheduler values of 0 keep the engine's defaults;
 * SLOs of 0 are none. Length distributions: 0 fixed, 1 uniform, 2 normal, 3 lognormal; schedulers: 0 the engine's,
 * 1 vLLM V1, 2 SGLang, 3 TensorRT-LLM.
 */
public final class Simulation {
    public long numPrompts, warmup, maxConcurrency, numPrefixPrompts, prefixLen, seed;
    /** Requests per second; {@code Double.POSITIVE_INFINITY}: every request at time 0. */
    public double requestRate;
    public double burstiness;
    public boolean constantRate;
    public int inputDistribution, outputDistribution;
    public double inputLen, inputSpread, outputLen, outputSpread;
    public int scheduler;
    public long maxBatchedTokens, maxSeqs, blockTokens, longPrefillTokenThreshold;
    public double gpuMemoryUtilization;
    public boolean chunkedPrefill = true, prefixCaching = true;
    public double sloTtftMs, sloTpotMs, sloE2elMs;
    public boolean recordTimeline;
    /** Closed-loop clients (infinite rate, maxConcurrency) start evenly over this many seconds; 0: together. */
    public double rampUpS;
    /** A trace replacing the generated requests: 5 longs per request (arrival_s as Double.doubleToRawLongBits,
     * input_len, output_len, prefix_id, prefix_len); see {@link #trace(double[], long[], long[])}. Empty: none. */
    long[] trace = new long[0];

    /** The library's defaults (mfusim_simulation_init). */
    public Simulation() {
        NativeLibrary.load();
        io.mfusim.swig.Simulation d = new io.mfusim.swig.Simulation();
        try {
            numPrompts = d.getNum_prompts();
            warmup = d.getWarmup();
            requestRate = d.getRequest_rate();
            burstiness = d.getBurstiness();
            maxConcurrency = d.getMax_concurrency();
            inputDistribution = d.getInput_distribution();
            outputDistribution = d.getOutput_distribution();
            inputLen = d.getInput_len();
            inputSpread = d.getInput_spread();
            outputLen = d.getOutput_len();
            outputSpread = d.getOutput_spread();
            numPrefixPrompts = d.getNum_prefix_prompts();
            prefixLen = d.getPrefix_len();
            seed = d.getSeed();
            scheduler = d.getScheduler();
        } finally {
            d.delete();
        }
    }

    /** Requests with these send times (seconds) and lengths, no shared prefixes, instead of generated ones. */
    public Simulation trace(double[] arrivalS, long[] inputLen, long[] outputLen) {
        int n = arrivalS.length;
        if (inputLen.length != n || outputLen.length != n) {
            throw new IllegalArgumentException("trace arrays of different lengths");
        }
        long[] packed = new long[5 * n];
        for (int i = 0; i < n; ++i) {
            packed[5 * i] = Double.doubleToRawLongBits(arrivalS[i]);
            packed[5 * i + 1] = inputLen[i];
            packed[5 * i + 2] = outputLen[i];
            packed[5 * i + 3] = -1;
            packed[5 * i + 4] = 0;
        }
        trace = packed;
        return this;
    }

    /** A SWIG simulation struct filled from these; the caller deletes it. */
    io.mfusim.swig.Simulation toNative() {
        io.mfusim.swig.Simulation s = new io.mfusim.swig.Simulation();
        s.setNum_prompts(numPrompts);
        s.setWarmup(warmup);
        s.setRequest_rate(requestRate);
        s.setBurstiness(burstiness);
        s.setConstant_rate(constantRate ? 1 : 0);
        s.setMax_concurrency(maxConcurrency);
        s.setInput_distribution(inputDistribution);
        s.setOutput_distribution(outputDistribution);
        s.setInput_len(inputLen);
        s.setInput_spread(inputSpread);
        s.setOutput_len(outputLen);
        s.setOutput_spread(outputSpread);
        s.setNum_prefix_prompts(numPrefixPrompts);
        s.setPrefix_len(prefixLen);
        s.setSeed(seed);
        s.setScheduler(scheduler);
        s.setMax_batched_tokens(maxBatchedTokens);
        s.setMax_seqs(maxSeqs);
        s.setBlock_tokens(blockTokens);
        s.setLong_prefill_token_threshold(longPrefillTokenThreshold);
        s.setGpu_memory_utilization(gpuMemoryUtilization);
        s.setDisable_chunked_prefill(chunkedPrefill ? 0 : 1);
        s.setDisable_prefix_caching(prefixCaching ? 0 : 1);
        s.setSlo_ttft_ms(sloTtftMs);
        s.setSlo_tpot_ms(sloTpotMs);
        s.setSlo_e2el_ms(sloE2elMs);
        s.setRecord_timeline(recordTimeline ? 1 : 0);
        s.setRamp_up_s(rampUpS);
        return s;
    }
}
