package io.mfusim;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Plan.plan and Sweep.sweep: the rows of {@code mfusim plan} and {@code mfusim sweep}, each the estimate of its
 * own deployment, step or workload. */
class PlanSweepTest {
    static final String MODEL = "llama-3.1-8b-instruct";

    static Serving workload() {
        return new Serving().inputLen(1024).outputLen(128);
    }

    @Test
    void planRowsAreServingEstimatesAndTheBestIsTheFastestWithinTheLimits() {
        PlanRequest r = new PlanRequest();
        assertEquals(512, r.maxConcurrency, "the library's default");
        Plan p = Plan.plan(new Options(MODEL, null), workload(),
                r.gpus("H100", "H200").tpList(1, 2).maxConcurrency(16).maxTpotMs(10));
        assertEquals(20, p.rows().size()); // two GPUs x two degrees x concurrency 1..16
        assertEquals(List.of("H100", "H200"), p.gpus().stream().map(Plan.Gpu::name).toList());
        for (int g = 0; g < 2; g++) {
            final int gpu = g;
            List<Plan.Row> mine = p.rows().stream().filter(row -> row.gpuIndex() == gpu).toList();
            assertEquals(10, p.gpus().get(g).evaluated());
            for (Plan.Row row : mine) assertEquals(row.tpotMs() <= 10, row.meetsLimits(), row.toString());
            double fastest = mine.stream().filter(Plan.Row::meetsLimits).mapToDouble(Plan.Row::outputTokSGpu).max()
                    .orElseThrow();
            Plan.Row best = p.best(g);
            assertTrue(best.best() && best.meetsLimits() && best.tpotMs() <= 10, best.toString());
            assertEquals(fastest, best.outputTokSGpu());
            assertEquals(1, mine.stream().filter(Plan.Row::best).count());
        }
        Plan.Row row = p.rows().get(13);
        try (Estimator est = new Estimator(new Options(MODEL, "H200").tensorParallel((int) row.tp()))) {
            ServingResult s = est.servingEstimate(workload().concurrency(row.concurrency()));
            assertEquals(s.ttftMs(), row.ttftMs());
            assertEquals(s.tpotMs(), row.tpotMs());
        }
    }

    @Test
    void planErrorsNameTheField() {
        MfusimException e = assertThrows(MfusimException.class,
                () -> Plan.plan(new Options(MODEL, null), workload(), new PlanRequest().gpus("no-such-gpu")));
        assertEquals(Status.UNKNOWN_NAME, e.status());
        e = assertThrows(MfusimException.class,
                () -> Plan.plan(new Options(MODEL, null), workload(), new PlanRequest().gpus("H100").tpList(0)));
        assertEquals(Status.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("tp_list"), e.getMessage());
        e = assertThrows(MfusimException.class,
                () -> Plan.plan(new Options(MODEL, null), workload(), new PlanRequest().maxTpotMs(-1)));
        assertTrue(e.getMessage().contains("max_tpot_ms"), e.getMessage());
    }

    @Test
    void servingSweepIsMonotoneInConcurrency() {
        Sweep s = Sweep.sweep(new Options(MODEL, "H100"), workload(),
                new SweepRequest().serving(true).vary(SweepParam.CONCURRENCY, "1", "2", "4", "8", "16", "32"));
        assertEquals(6, s.rows().size());
        for (int i = 1; i < 6; i++) {
            Sweep.Row a = s.rows().get(i - 1), b = s.rows().get(i);
            assertTrue(b.ok() && b.varyIndex() == i && b.error().isEmpty(), b.toString());
            assertTrue(b.tpotMs() >= a.tpotMs() && b.outputTokSGpu() > a.outputTokSGpu(), a + " then " + b);
        }
        try (Estimator est = new Estimator(new Options(MODEL, "H100"))) {
            assertEquals(est.servingEstimate(workload().concurrency(8)).tpotMs(), s.rows().get(3).tpotMs());
        }
    }

    @Test
    void stepSweepRowsAreStepTimesSeriesMajor() {
        SweepRequest r = new SweepRequest();
        assertEquals(SweepParam.DECODE_BATCH, r.vary);
        assertNull(r.series);
        Sweep s = Sweep.sweep(new Options(MODEL, "H100"), new Serving(),
                r.vary(SweepParam.DECODE_BATCH, "1", "16", "128").series(SweepParam.TP, "1", "2").context(4096));
        assertEquals(6, s.rows().size());
        for (int i = 0; i < 6; i++) {
            Sweep.Row row = s.rows().get(i);
            assertEquals(i % 3, row.varyIndex());
            assertEquals(i / 3, row.seriesIndex());
            assertTrue(row.ok() && row.stepMs() > 0 && !row.detail().isEmpty(), row.toString());
            if (i % 3 > 0) assertTrue(row.stepMs() >= s.rows().get(i - 1).stepMs(), row.toString());
        }
        Requests step = new Requests();
        for (int i = 0; i < 16; i++) step.addDecode(4096);
        try (Estimator est = new Estimator(new Options(MODEL, "H100").tensorParallel(2))) {
            assertEquals(est.stepTime(step) / 1000, s.rows().get(4).stepMs());
        }
    }

    @Test
    void sweepErrorsNameTheField() {
        Options o = new Options(MODEL, "H100");
        MfusimException e = assertThrows(MfusimException.class,
                () -> Sweep.sweep(o, new Serving(), new SweepRequest().vary(SweepParam.CONCURRENCY, "4")));
        assertEquals(Status.INVALID_ARGUMENT, e.status());
        assertTrue(e.getMessage().contains("concurrency"), e.getMessage());
        e = assertThrows(MfusimException.class,
                () -> Sweep.sweep(o, new Serving(), new SweepRequest().vary(SweepParam.DECODE_BATCH, "-1")));
        assertTrue(e.getMessage().contains("decode-batch"), e.getMessage());
        e = assertThrows(MfusimException.class, () -> Sweep.sweep(o, new Serving(), new SweepRequest()));
        assertTrue(e.getMessage().contains("vary_values"), e.getMessage());
    }
}
