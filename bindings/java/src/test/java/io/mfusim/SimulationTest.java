package io.mfusim;

import static io.mfusim.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SimulationTest {
    static Simulation small() {
        Simulation s = new Simulation();
        s.numPrompts = 24;
        s.warmup = 2;
        s.maxConcurrency = 4;
        s.inputDistribution = 1; // uniform
        s.inputLen = 256;
        s.inputSpread = 64;
        s.outputLen = 16;
        s.seed = 7;
        return s;
    }

    @Test
    void simulateSummaryRequestsDeterminismErrors() {
        Simulation defaults = new Simulation();
        assertEquals(1000, defaults.numPrompts);
        assertTrue(Double.isInfinite(defaults.requestRate));
        try (Estimator est = new Estimator(roofline());
             SimulationResult r = est.simulate(small());
             SimulationResult again = est.simulate(small())) {
            assertEquals(22, r.completed);
            assertEquals(22 * 16, r.totalOutputTokens);
            assertTrue(r.ttftMsStats[0] > 0 && r.itlMsStats[0] > 0 && r.e2elMsStats[0] > r.ttftMsStats[0]);
            assertEquals(24, r.ttftMs.length);
            assertTrue(r.warmup[0] && r.warmup[1] && !r.warmup[2]);
            for (int i = 0; i < 24; ++i) {
                assertTrue(r.inputLen[i] >= 192 && r.inputLen[i] <= 320 && r.outputLen[i] == 16);
                assertTrue(r.e2elMs[i] >= r.ttftMs[i] && r.ttftMs[i] > 0);
            }
            assertEquals(r.ttftMsStats[1], r.percentile(SimulationResult.Metric.TTFT, 50));
            assertEquals(r.itlMsStats[5], r.percentile(SimulationResult.Metric.ITL, 99));
            assertArrayEquals(r.ttftMs, again.ttftMs);
            assertArrayEquals(r.inputLen, again.inputLen);
            MfusimException e = assertThrows(MfusimException.class,
                    () -> r.percentile(SimulationResult.Metric.E2EL, 101));
            assertEquals(Status.INVALID_ARGUMENT, e.status());

            Simulation traced = new Simulation().trace(new double[] {0, 0.01}, new long[] {128, 256}, new long[] {8, 4});
            try (SimulationResult t = est.simulate(traced)) {
                assertArrayEquals(new long[] {128, 256}, t.inputLen);
                assertArrayEquals(new long[] {8, 4}, t.outputLen);
            }
            Simulation bad = small();
            bad.numPrompts = 0;
            e = assertThrows(MfusimException.class, () -> est.simulate(bad));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("num_prompts"), e.getMessage());
        }
        try (Estimator est = new Estimator(roofline())) {
            Simulation s = small();
            s.recordTimeline = true;
            s.rampUpS = 0.3;
            try (SimulationResult r = est.simulate(s)) {
                assertEquals(r.steps, r.stepStartMs.length);
                assertTrue(r.stepDurationMs[0] > 0 && r.stepRunning[0] > 0 && r.stepPrefillTokens[0] > 0);
                for (int i = 1; i < r.stepStartMs.length; ++i) assertTrue(r.stepStartMs[i] >= r.stepStartMs[i - 1]);
                for (double kv : r.stepKvUsed) assertTrue(kv >= 0 && kv <= 1);
                assertTrue(r.sendMs[0] == 0 && r.sendMs[3] > 200 && r.sendMs[3] < 300); // client 3 at 3 x 0.3 s / 4
            }
            try (SimulationResult r = est.simulate(small())) {
                assertNull(r.stepStartMs);
            }
        }
        try (Estimator compat = new Estimator(compat())) {
            MfusimException e = assertThrows(MfusimException.class, () -> compat.simulate(small()));
            assertEquals(Status.UNSUPPORTED, e.status());
        }
    }
}
