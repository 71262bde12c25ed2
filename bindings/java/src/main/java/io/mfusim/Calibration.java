package io.mfusim;

import io.mfusim.swig.MfusimNative;

/**
 * A fitted calibration (docs/calibration.md), as {@code mfusim calibrate} makes it, copied out of the native one,
 * which is freed at once: a plain immutable Java value. Use it by passing {@link #document()} to
 * {@link Options#calibration(String)} (or by writing it to a file and passing the path).
 *
 * <p>Fitting reads files and takes seconds: not a hot path. Failures throw {@link MfusimException} with the
 * library's status and message.
 */
public final class Calibration {
    private final String document;
    private final String report;
    private final boolean improved;

    static {
        NativeLibrary.load();
    }

    Calibration(String document, String report, boolean improved) {
        this.document = document;
        this.report = report;
        this.improved = improved;
    }

    /**
     * Fits a calibration to measured engine steps, as {@code mfusim calibrate --steps} does.
     *
     * @param stepsPath a JSONL file of measured steps: a header line naming the model and GPU, then one step per
     *     line (docs/calibration.md)
     * @param options the deployment; a null model or GPU ({@code new Options(null, null)}) takes the file header's,
     *     whose engine also applies when no engine is set and its tp when the tensor parallelism is 0 (another
     *     value wins over the header's, as {@code --tp} does, but 1, the default, against a header naming another
     *     tp is an INVALID_ARGUMENT error); no calibration may be set
     * @param folds cross-validation folds, at least 2 (0: the default, 5)
     * @return the fit, whether or not it beats the defaults ({@link #improved()} says)
     */
    public static Calibration calibrateSteps(String stepsPath, Options options, int folds) {
        Options.noNul(stepsPath, "stepsPath");
        io.mfusim.swig.Options o = options.toNative();
        try {
            return take(MfusimNative.mfusimJavaCalibrateSteps(o, stepsPath, folds));
        } finally {
            o.delete();
        }
    }

    /**
     * Fits the GPU profile's own constants to measured kernels, as {@code mfusim calibrate --kernels} does.
     *
     * @param kernelsDir an AIConfigurator-format directory of kernel measurements
     * @param options the GPU they were measured on ({@code new Options(null, "A100")}), and optional MFU tables
     *     ({@link Options#benchDataDir(String)}); the other options are not used
     */
    public static Calibration calibrateKernels(String kernelsDir, Options options) {
        Options.noNul(kernelsDir, "kernelsDir");
        io.mfusim.swig.Options o = options.toNative();
        try {
            return take(MfusimNative.mfusimJavaCalibrateKernels(o, kernelsDir));
        } finally {
            o.delete();
        }
    }

    /** Copies a calibration the library just made (never null: a failure has thrown), then frees it. */
    private static Calibration take(io.mfusim.swig.Calibration raw) {
        try {
            return new Calibration(MfusimNative.mfusimCalibrationDocument(raw),
                    MfusimNative.mfusimCalibrationReport(raw), MfusimNative.mfusimCalibrationImproved(raw) != 0);
        } finally {
            MfusimNative.mfusimCalibrationFree(raw);
        }
    }

    /** The calibration file's JSON text: write it to a file, or pass it to {@link Options#calibration(String)}. */
    public String document() {
        return document;
    }

    /** The fit's report for a human: coefficients and errors before, in training and held out. */
    public String report() {
        return report;
    }

    /**
     * Whether the fit beats the defaults on data it did not see (what {@code mfusim calibrate -o} requires before
     * writing).
     */
    public boolean improved() {
        return improved;
    }

    @Override
    public String toString() {
        return "Calibration[improved=" + improved + "]: " + document;
    }
}
