package io.mfusim;

/**
 * A disaggregated serving estimate (immutable; docs/disagg.md derives it). Times in milliseconds; {@link #ttftMs()}
 * is {@code admissionMs + prefillQueueMs + prefillMs + transferMs + decodeWaitMs}.
 */
public final class DisaggResult {
    private final double ttftMs, tpotMs, e2eMs, outputTokensPerSecPerGpu, requestsPerSec, admissionMs, prefillQueueMs,
            prefillMs, transferMs, decodeWaitMs, prefillBatchMs, promptsPerBatch, prefillUtilization, decodeStepMs,
            decodeBatch, decodeSlots, kvTransferBytes;
    private final boolean transferOverNetwork;
    private final long prefillGpus, decodeGpus;

    /** Copies every field of the native result. */
    DisaggResult(io.mfusim.swig.DisaggResult r) {
        ttftMs = r.getTtft_ms();
        tpotMs = r.getTpot_ms();
        e2eMs = r.getE2e_ms();
        outputTokensPerSecPerGpu = r.getOutput_throughput_tok_s_gpu();
        requestsPerSec = r.getRequest_throughput_req_s();
        admissionMs = r.getAdmission_ms();
        prefillQueueMs = r.getPrefill_queue_ms();
        prefillMs = r.getPrefill_ms();
        transferMs = r.getTransfer_ms();
        decodeWaitMs = r.getDecode_wait_ms();
        prefillBatchMs = r.getPrefill_batch_ms();
        promptsPerBatch = r.getPrompts_per_batch();
        prefillUtilization = r.getPrefill_utilization();
        decodeStepMs = r.getDecode_step_ms();
        decodeBatch = r.getDecode_batch();
        decodeSlots = r.getDecode_slots();
        kvTransferBytes = r.getKv_transfer_bytes();
        transferOverNetwork = r.getTransfer_over_network() != 0;
        prefillGpus = r.getPrefill_gpus();
        decodeGpus = r.getDecode_gpus();
    }

    /** Mean time to first token: admission, prefill queue, prefill, transfer and decode-slot wait added. */
    public double ttftMs() { return ttftMs; }
    /** Mean time per output token after the first: the decode pool's step at its mean batch. */
    public double tpotMs() { return tpotMs; }
    /** Mean request latency: ttft + (outputLen - 1) * tpot. */
    public double e2eMs() { return e2eMs; }
    /** Generated tokens per second per GPU, both pools' GPUs counted. */
    public double outputTokensPerSecPerGpu() { return outputTokensPerSecPerGpu; }
    /** Finished requests per second, whole deployment. */
    public double requestsPerSec() { return requestsPerSec; }
    /** The engine's admission, tokenisation and first token out. */
    public double admissionMs() { return admissionMs; }
    /** Waiting for a prefill worker. */
    public double prefillQueueMs() { return prefillQueueMs; }
    /** One prompt's prefill on an idle worker. */
    public double prefillMs() { return prefillMs; }
    /** The KV cache from the prefill to the decode worker. */
    public double transferMs() { return transferMs; }
    /** Waiting for a decode slot. */
    public double decodeWaitMs() { return decodeWaitMs; }
    /** One prefill batch of {@link #promptsPerBatch()} prompts. */
    public double prefillBatchMs() { return prefillBatchMs; }
    /** Prompts per prefill batch of an attention replica of a prefill worker. */
    public double promptsPerBatch() { return promptsPerBatch; }
    /** Busy share of the prefill pool. */
    public double prefillUtilization() { return prefillUtilization; }
    /** The decode step at {@link #decodeBatch()}. */
    public double decodeStepMs() { return decodeStepMs; }
    /** Mean requests decoding per attention replica of a decode worker. */
    public double decodeBatch() { return decodeBatch; }
    /** The most requests a decode replica holds (batch, max_seqs, KV cache). */
    public double decodeSlots() { return decodeSlots; }
    /** One request's KV over the busiest GPU link, in bytes. */
    public double kvTransferBytes() { return kvTransferBytes; }
    /** True: the KV cache moves over RDMA between nodes; false: over NVLink inside one domain. */
    public boolean transferOverNetwork() { return transferOverNetwork; }
    /** GPUs of one prefill worker. */
    public long prefillGpus() { return prefillGpus; }
    /** GPUs of one decode worker. */
    public long decodeGpus() { return decodeGpus; }

    @Override
    public String toString() {
        return String.format("DisaggResult{ttft %.3f ms (prefill queue %.3f, prefill %.3f, transfer %.3f, decode wait "
                + "%.3f), tpot %.3f ms, %.1f tok/s/GPU, %d + %d GPUs}", ttftMs, prefillQueueMs, prefillMs, transferMs,
                decodeWaitMs, tpotMs, outputTokensPerSecPerGpu, prefillGpus, decodeGpus);
    }
}
