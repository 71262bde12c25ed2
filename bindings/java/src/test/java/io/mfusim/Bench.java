package io.mfusim;

import java.util.Arrays;

/**
 * Per-call cost of the Java binding on the shared fixtures (bindings/README.md), as medians of repeated timed
 * runs after JIT warm-up; prints {@code java <case> <ns>} lines that bindings/bench_all.sh tabulates.
 * Run: java -cp <classes>:<test-classes> -Dmfusim.library.path=<dir> io.mfusim.Bench [--quick]
 */
public final class Bench {
    private static double sink;

    interface Body {
        void run();
    }

    static double medianNs(int runs, int iters, int units, Body body) {
        for (int i = 0; i < Math.max(iters, 20_000); i++) body.run(); // warm-up: JIT
        double[] samples = new double[runs];
        for (int r = 0; r < runs; r++) {
            long t = System.nanoTime();
            for (int i = 0; i < iters; i++) body.run();
            samples[r] = (System.nanoTime() - t) / (double) iters / units;
        }
        Arrays.sort(samples);
        return samples[runs / 2];
    }

    public static void main(String[] args) {
        boolean quick = Arrays.asList(args).contains("--quick");
        int runs = quick ? 3 : 9;
        int scale = quick ? 1 : 10;
        try (Estimator est = new Estimator(Fixtures.roofline())) {
            Requests one = Fixtures.decodeStep();
            Requests mixed = Fixtures.mixedStep(256);
            System.out.printf("java single_1 %.1f%n", medianNs(runs, 20_000 * scale, 1, () -> sink += est.stepTime(one)));
            System.out.printf("java single_256 %.1f%n",
                    medianNs(runs, 2_000 * scale, 1, () -> sink += est.stepTime(mixed)));
            System.out.printf("java batch_1x1000_per_step %.2f%n", batch(est, one, 1000, runs, 20 * scale));
            System.out.printf("java batch_256x64_per_step %.1f%n", batch(est, mixed, 64, runs, 30 * scale));
        }
        if (sink == 42) System.out.println();
    }

    static double batch(Estimator est, Requests step, int nSteps, int runs, int iters) {
        Requests all = new Requests(step.size() * nSteps);
        for (int i = 0; i < nSteps; i++) all.addAll(step);
        long[] sizes = new long[nSteps];
        Arrays.fill(sizes, step.size());
        double[] out = new double[nSteps];
        return medianNs(runs, iters, nSteps, () -> {
            est.stepTimeBatch(all, sizes, out);
            sink += out[0];
        });
    }
}
