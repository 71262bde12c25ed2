package io.mfusim;

/** A serving estimate (immutable). Times in milliseconds. */
public final class ServingResult {
    /** What held the number of running requests below the concurrency. */
    public enum Limit {
        /** Every client's request runs at once. */
        NONE,
        /** Prompts arrive faster than the token budget admits them. */
        TOKEN_BUDGET,
        /** {@link Serving#maxSeqs}. */
        MAX_SEQS,
        /** The KV cache holds fewer requests than the concurrency. */
        KV_CAPACITY,
        /** A limit this binding does not know (a newer library). */
        UNKNOWN;

        static Limit of(int code) {
            Limit[] all = values();
            return code >= 0 && code < all.length - 1 ? all[code] : UNKNOWN;
        }
    }

    private final double ttftMs, tpotMs, e2eMs, outputTokensPerSecPerGpu, requestsPerSec, decodeStepMs, mixedStepMs,
            mixedStepFraction, decodeBatch, prefillTokensPerMixedStep, prefillStepsPerRequest, queueMs,
            runningRequests, kvCapacityTokens;
    private final Limit limitedBy;

    ServingResult(double ttftMs, double tpotMs, double e2eMs, double outputTokensPerSecPerGpu, double requestsPerSec,
                  double decodeStepMs, double mixedStepMs, double mixedStepFraction, double decodeBatch,
                  double prefillTokensPerMixedStep, double prefillStepsPerRequest, double queueMs,
                  double runningRequests, double kvCapacityTokens, Limit limitedBy) {
        this.ttftMs = ttftMs;
        this.tpotMs = tpotMs;
        this.e2eMs = e2eMs;
        this.outputTokensPerSecPerGpu = outputTokensPerSecPerGpu;
        this.requestsPerSec = requestsPerSec;
        this.decodeStepMs = decodeStepMs;
        this.mixedStepMs = mixedStepMs;
        this.mixedStepFraction = mixedStepFraction;
        this.decodeBatch = decodeBatch;
        this.prefillTokensPerMixedStep = prefillTokensPerMixedStep;
        this.prefillStepsPerRequest = prefillStepsPerRequest;
        this.queueMs = queueMs;
        this.runningRequests = runningRequests;
        this.kvCapacityTokens = kvCapacityTokens;
        this.limitedBy = limitedBy;
    }

    /** Mean time to first token, waiting for admission included. */
    public double ttftMs() { return ttftMs; }
    /** Mean time per output token after the first. */
    public double tpotMs() { return tpotMs; }
    /** Mean request latency: ttft + (outputLen - 1) * tpot. */
    public double e2eMs() { return e2eMs; }
    /** Generated tokens per second per GPU of the deployment. */
    public double outputTokensPerSecPerGpu() { return outputTokensPerSecPerGpu; }
    /** Finished requests per second, whole deployment. */
    public double requestsPerSec() { return requestsPerSec; }
    /** A step of the steady decode batch alone. */
    public double decodeStepMs() { return decodeStepMs; }
    /** A step of the decode batch plus the prefill chunks it carries. */
    public double mixedStepMs() { return mixedStepMs; }
    /** Share of steps that carry prefill chunks. */
    public double mixedStepFraction() { return mixedStepFraction; }
    /** Mean requests decoding in a step (per attention replica). */
    public double decodeBatch() { return decodeBatch; }
    /** Prefill tokens a mixed step carries. */
    public double prefillTokensPerMixedStep() { return prefillTokensPerMixedStep; }
    /** Steps a prompt's chunks span. */
    public double prefillStepsPerRequest() { return prefillStepsPerRequest; }
    /** Share of ttft spent waiting for admission. */
    public double queueMs() { return queueMs; }
    /** Mean requests admitted at once (per attention replica). */
    public double runningRequests() { return runningRequests; }
    /** KV-cache tokens per attention replica. */
    public double kvCapacityTokens() { return kvCapacityTokens; }
    /** What held the running requests below the concurrency. */
    public Limit limitedBy() { return limitedBy; }

    @Override
    public String toString() {
        return String.format("ServingResult{ttft %.3f ms, tpot %.3f ms, %.1f tok/s/GPU, limited by %s}", ttftMs,
                tpotMs, outputTokensPerSecPerGpu, limitedBy);
    }
}
