package io.mfusim;

/** InferSim's TTFT / TPOT question. {@code new Scenario()} holds the library's defaults. */
public final class Scenario {
    public long inputLen = 4096;
    public long outputLen = 2048;
    public long maxPrefillTokens = 4096;
    /** Decode batch per GPU; below 0: ceil(targetTgs * targetTpotMs / 1000). */
    public long decodeBatch = -1;
    public double targetTgs = 2560;
    public double targetTpotMs = 50;
    /** 0 both phases, 1 prefill only, 2 decode only. */
    public int phases = 0;

    /** A SWIG scenario struct (initialised by the library, then overwritten with these); the caller deletes it. */
    io.mfusim.swig.Scenario toNative() {
        io.mfusim.swig.Scenario s = new io.mfusim.swig.Scenario();
        s.setInput_len(inputLen);
        s.setOutput_len(outputLen);
        s.setMax_prefill_tokens(maxPrefillTokens);
        s.setDecode_batch(decodeBatch);
        s.setTarget_tgs(targetTgs);
        s.setTarget_tpot_ms(targetTpotMs);
        s.setPhases(phases);
        return s;
    }
}
