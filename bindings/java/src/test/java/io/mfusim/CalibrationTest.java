package io.mfusim;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fitting calibrations, as tests/c/c_api_test.c's test_calibrate: steps timed by a "true" model whose GEMMs run
 * 1.5x slower are fitted back, the document applied through Options.calibration reproduces them, and bad input
 * throws MfusimException with the library's status and message.
 */
class CalibrationTest {
    @Test
    void stepsAreFittedBack(@TempDir Path dir) throws IOException {
        Path steps = dir.resolve("steps.jsonl");
        try (Estimator truth = new Estimator(new Options("qwen3-8b", "H100")
                .calibration("{\"mfusim_calibration\": 1, \"efficiency\": {\"gemm\": 1.5}}"))) {
            StringBuilder text = new StringBuilder("{\"model\": \"qwen3-8b\", \"gpu\": \"H100\"}\n");
            for (int i = 0; i < 64; i++) {
                long newTokens = 1 + (i % 4) * 170, context = 256 * (i % 8), decodeContext = 500 + 37 * i;
                double t = truth.stepTime(new Requests().add(newTokens, context, 0).addDecode(decodeContext));
                text.append(String.format(Locale.ROOT,
                        "{\"requests\": [{\"new_tokens\": %d, \"context\": %d}, {\"new_tokens\": 1, \"context\": %d}],"
                                + " \"measured_us\": %s, \"group\": \"g%d\"}\n",
                        newTokens, context, decodeContext, Double.toString(t), i % 4));
            }
            Files.writeString(steps, text);

            // Model and GPU from the file's header.
            Calibration fit = Calibration.calibrateSteps(steps.toString(), new Options(null, null), 0);
            assertTrue(fit.improved(), fit.report());
            assertTrue(fit.document().contains("\"mfusim_calibration\""), fit.document());
            assertTrue(fit.report().contains("held out"), fit.report());
            try (Estimator fitted = new Estimator(new Options("qwen3-8b", "H100").calibration(fit.document()))) {
                Requests probe = new Requests().add(300, 1000, 0).addDecode(4000).addDecode(90);
                double tTruth = truth.stepTime(probe), tFitted = fitted.stepTime(probe);
                assertTrue(Math.abs(tFitted / tTruth - 1) < 0.03, "fitted " + tFitted + " us, truth " + tTruth);
            }
        }

        MfusimException e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateSteps(steps.toString(), new Options(null, null), 1));
        assertEquals(Status.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("folds"), e.getMessage());
        e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateSteps(null, new Options(null, null), 0));
        assertEquals(Status.INVALID_ARGUMENT, e.status());
        e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateSteps("/nonexistent/steps.jsonl", new Options(null, null), 0));
        assertEquals(Status.IO, e.status());
        assertTrue(e.getMessage().contains("/nonexistent/steps.jsonl"), e.getMessage());
    }

    @Test
    void kernelsAreFitted(@TempDir Path dir) throws IOException {
        // A few GEMM rows measured on an "A100" (AIConfigurator layout: m, n, k, latency in ms).
        StringBuilder csv = new StringBuilder("m,n,k,latency\n");
        for (int i = 0; i < 48; i++) {
            long n = 1024L << (i % 4), k = 2048L << ((i / 4) % 3), m = 1L << (i / 12 * 3);
            double ms = 0.004 + 2.0 * m * n * k / 200e12 * 1e3 + 2.0 * n * k / 1.4e12 * 1e3;
            csv.append(String.format(Locale.ROOT, "%d,%d,%d,%.6f\n", m, n, k, ms));
        }
        Files.writeString(dir.resolve("gemm_bf16.csv"), csv);

        Calibration fit = Calibration.calibrateKernels(dir.toString(), new Options(null, "A100"));
        assertTrue(fit.document().contains("\"gpu\""), fit.document());
        assertTrue(fit.report().contains("gemm"), fit.report());

        MfusimException e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateKernels(dir.toString(), new Options(null, null)));
        assertEquals(Status.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("options.gpu"), e.getMessage());
        e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateKernels("/nonexistent/kernels", new Options(null, "A100")));
        assertTrue(e.getMessage().contains("/nonexistent/kernels"), e.getMessage());
    }

    /** Strings holding a NUL are refused naming the argument (issue #23). */
    @Test
    void stringsWithANulAreRefused() {
        MfusimException e = assertThrows(MfusimException.class,
                () -> new Estimator(new Options("qwen3-8b\0junk", "H100")));
        assertEquals(Status.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().startsWith("model: embedded NUL character at offset 8"), e.getMessage());
        e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateSteps("steps\0.jsonl", new Options(null, null), 0));
        assertTrue(e.getMessage().startsWith("stepsPath: embedded NUL"), e.getMessage());
    }

    /** The default tensor parallelism (1) against a header naming tp 2 is refused; 0 takes the header's. */
    @Test
    void tensorParallelAgainstTheHeader(@TempDir Path dir) throws IOException {
        Path steps = dir.resolve("steps.jsonl");
        Files.writeString(steps, "{\"model\": \"qwen3-8b\", \"gpu\": \"H100\", \"tp\": 2}\n"
                + "{\"requests\": [{\"new_tokens\": 1, \"context\": 10}], \"measured_us\": 5000}\n");
        MfusimException e = assertThrows(MfusimException.class,
                () -> Calibration.calibrateSteps(steps.toString(), new Options(null, null), 0));
        assertTrue(e.getMessage().contains("header says tp 2"), e.getMessage());
        Calibration c = Calibration.calibrateSteps(steps.toString(), new Options(null, null).tensorParallel(0), 0);
        assertTrue(c.document().contains("\"tp\": 2"), c.document());
    }
}
