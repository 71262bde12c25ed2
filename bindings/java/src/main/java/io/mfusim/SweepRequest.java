package io.mfusim;

/**
 * What {@link Sweep#sweep} varies, and the step every point starts from: {@code new SweepRequest()} holds the
 * library's defaults (mfusim_sweep_request_init) and no values. Values are decimal integers or names, as on
 * {@code mfusim sweep}'s command line.
 */
public final class SweepRequest {
    /** false: time one step per point; true: the serving metrics. */
    public boolean serving;
    /** Serving: the simulated benchmark instead of the closed form. */
    public boolean simulate;
    /** The x axis. */
    public SweepParam vary;
    /** Its values, 1..4096 of them. */
    public String[] varyValues = new String[0];
    /** A second parameter (every x of the first series value, then the next); null: none. */
    public SweepParam series;
    /** Its values. */
    public String[] seriesValues = new String[0];
    /** The step every point starts from: decodes ... */
    public long decodeBatch;
    /** ... at this many cached tokens each ... */
    public long context;
    /** ... and one prefill chunk of this many new tokens (0: none). */
    public long chunk;

    /** The library's defaults. */
    public SweepRequest() {
        NativeLibrary.load();
        io.mfusim.swig.SweepRequest d = new io.mfusim.swig.SweepRequest();
        try {
            serving = d.getServing() != 0;
            simulate = d.getSimulate() != 0;
            vary = SweepParam.of(d.getVary());
            series = SweepParam.of(d.getSeries());
            decodeBatch = d.getDecode_batch();
            context = d.getContext();
            chunk = d.getChunk();
        } finally {
            d.delete();
        }
    }

    /** Fluent setters, for {@code new SweepRequest().serving(true).vary(SweepParam.CONCURRENCY, "1", "8")}. */
    public SweepRequest serving(boolean v) { serving = v; return this; }
    public SweepRequest simulate(boolean v) { simulate = v; return this; }
    public SweepRequest vary(SweepParam p, String... values) { vary = p; varyValues = values; return this; }
    public SweepRequest series(SweepParam p, String... values) { series = p; seriesValues = values; return this; }
    public SweepRequest decodeBatch(long v) { decodeBatch = v; return this; }
    public SweepRequest context(long v) { context = v; return this; }
    public SweepRequest chunk(long v) { chunk = v; return this; }

    /** A SWIG request struct with the scalar fields (the values travel as arguments); the caller deletes it. */
    io.mfusim.swig.SweepRequest toNative() {
        io.mfusim.swig.SweepRequest r = new io.mfusim.swig.SweepRequest();
        r.setServing(serving ? 1 : 0);
        r.setSimulate(simulate ? 1 : 0);
        r.setVary(java.util.Objects.requireNonNull(vary, "vary").code());
        r.setSeries(series == null ? io.mfusim.swig.MfusimNativeConstants.MFUSIM_SWEEP_NONE : series.code());
        r.setDecode_batch(decodeBatch);
        r.setContext(context);
        r.setChunk(chunk);
        return r;
    }
}
