package io.mfusim;

/** What to load: a model on a GPU, with optional tables and deployment. Fluent setters; defaults as the library's. */
public final class Options {
    private final String model;
    private final String gpu;
    private String benchDataDir;
    private Mode mode = Mode.ROOFLINE;
    private int tensorParallel = 1;
    private int worldSize = 1;
    private int numNodes = 1;
    private boolean fp8Gemm;
    private boolean fp8Kv;
    private boolean deepEp;
    private boolean twoBatchOverlap;
    private double smRatio = Double.NaN; // NaN: the library's default
    private String engine;
    private String calibration;
    private String quant;
    private int expertParallel = 1;
    private int attentionDataParallel = 1;

    /**
     * @param model a catalogue name, a path to a Hugging Face config.json, or the JSON text
     * @param gpu a built-in GPU name (H100, H20, ...) or a path to a JSON profile
     */
    public Options(String model, String gpu) {
        this.model = model;
        this.gpu = gpu;
    }

    public Options benchDataDir(String dir) { this.benchDataDir = dir; return this; }
    public Options mode(Mode mode) { this.mode = mode; return this; }
    public Options tensorParallel(int tp) { this.tensorParallel = tp; return this; }
    public Options worldSize(int n) { this.worldSize = n; return this; }
    public Options numNodes(int n) { this.numNodes = n; return this; }
    public Options fp8Gemm(boolean on) { this.fp8Gemm = on; return this; }
    public Options fp8Kv(boolean on) { this.fp8Kv = on; return this; }
    public Options deepEp(boolean on) { this.deepEp = on; return this; }
    public Options twoBatchOverlap(boolean on) { this.twoBatchOverlap = on; return this; }
    public Options smRatio(double ratio) { this.smRatio = ratio; return this; }
    /**
     * The serving engine around the kernels (roofline): {@code "vllm"} (null: the default), {@code "sglang"},
     * {@code "trtllm"}, or {@code "none"} (the kernels alone).
     */
    public Options engine(String engine) { this.engine = engine; return this; }
    /**
     * Weight quantization overriding the checkpoint's (roofline): {@code "bf16"}, {@code "fp8"},
     * {@code "fp8_block"}, {@code "nvfp4"}, {@code "mxfp4"}, {@code "int4_wo"}; null: as the checkpoint states.
     */
    public Options quant(String quant) { this.quant = quant; return this; }
    /** GPUs the routed experts are sharded over (roofline). Default 1. */
    public Options expertParallel(int ep) { this.expertParallel = ep; return this; }
    /** Attention data-parallel replicas inside the EP group (roofline). Default 1. */
    public Options attentionDataParallel(int n) { this.attentionDataParallel = n; return this; }
    /**
     * A calibration file written by {@code mfusim calibrate --steps} (roofline): its path or its JSON text, holding
     * per-family efficiency multipliers and engine terms fitted to your own measurements; null: the built-in
     * constants. See docs/calibration.md.
     */
    public Options calibration(String calibration) { this.calibration = calibration; return this; }

    /**
     * {@code value}, refused if it holds a NUL character: the library reads C strings, and JNI would hand it
     * "model\0junk" as bytes no name or path has (modified UTF-8), so the error would not say why.
     */
    static String noNul(String value, String name) {
        int at = value == null ? -1 : value.indexOf('\0');
        if (at >= 0) {
            throw new MfusimException(Status.INVALID_ARGUMENT,
                    name + ": embedded NUL character at offset " + at + " (the library reads text up to a NUL)");
        }
        return value;
    }

    /** A SWIG options struct filled from these; the caller deletes it. */
    io.mfusim.swig.Options toNative() {
        noNul(model, "model");
        noNul(gpu, "gpu");
        noNul(benchDataDir, "benchDataDir");
        noNul(engine, "engine");
        noNul(quant, "quant");
        noNul(calibration, "calibration");
        io.mfusim.swig.Options o = new io.mfusim.swig.Options();
        if (model != null) o.setModel(model);
        if (gpu != null) o.setGpu(gpu);
        if (benchDataDir != null) o.setBench_data_dir(benchDataDir);
        o.setMode(mode == Mode.INFERSIM ? io.mfusim.swig.MfusimNativeConstants.MFUSIM_MODE_INFERSIM
                                        : io.mfusim.swig.MfusimNativeConstants.MFUSIM_MODE_ROOFLINE);
        o.setTensor_parallel(tensorParallel);
        o.setWorld_size(worldSize);
        o.setNum_nodes(numNodes);
        o.setFp8_gemm(fp8Gemm ? 1 : 0);
        o.setFp8_kv(fp8Kv ? 1 : 0);
        o.setDeepep(deepEp ? 1 : 0);
        o.setTwo_batch_overlap(twoBatchOverlap ? 1 : 0);
        if (!Double.isNaN(smRatio)) o.setSm_ratio(smRatio);
        if (engine != null) o.setEngine(engine);
        if (quant != null) o.setQuant(quant);
        o.setExpert_parallel(expertParallel);
        o.setAttention_data_parallel(attentionDataParallel);
        if (calibration != null) o.setCalibration(calibration);
        return o;
    }
}
