package io.mfusim;

import static io.mfusim.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class EstimatorTest {
    static double positive(double us) {
        assertTrue(us > 0 && Double.isFinite(us), "step time " + us);
        return us;
    }

    @Test
    void versionAndCatalogue() {
        assertEquals(io.mfusim.swig.MfusimNativeConstants.MFUSIM_VERSION_NUMBER, Estimator.versionNumber());
        assertEquals(3, Estimator.version().split("\\.").length);
        assertTrue(Estimator.models().contains("qwen3-8b"), Estimator.models().toString());
        assertTrue(Estimator.models().contains("llama-3.1-8b-instruct"));
        assertTrue(Estimator.gpus().stream().anyMatch(g -> g.equalsIgnoreCase("H100")));
    }

    @Test
    void requestsPackTheCLayout() {
        Requests r = new Requests(1).addPrefill(512, 7, false).addDecode(99);
        assertEquals(2, r.size());
        assertEquals(512, r.newTokens(0));
        assertEquals(7, r.context(0));
        assertEquals(Requests.NO_OUTPUT, r.flags(0));
        assertEquals(0, r.flags(1));
        assertEquals(99, r.context(1));
        assertEquals(Requests.LONGS_PER_REQUEST * 8, 24, "mfusim_request is 24 bytes");
        assertThrows(IndexOutOfBoundsException.class, () -> r.context(2));
        // The flag reaches C in the right half of the third long: an unknown flag bit is refused by the library.
        try (Estimator est = new Estimator(roofline())) {
            MfusimException e = assertThrows(MfusimException.class,
                    () -> est.stepTime(new Requests().add(1, 1, 0x80)));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("flag"), e.getMessage());
        }
    }

    @Test
    void rooflineStepTimesArePositiveAndGrow() {
        for (String model : new String[] {"llama-3.1-8b-instruct", "qwen3-8b"}) {
            try (Estimator est = new Estimator(new Options(model, "H100"))) {
                assertEquals(0.0, est.stepTime(new Requests()), "the fitted vllm profile has no per-step cost");
                positive(est.stepTime(decodeStep()));
                positive(est.stepTime(mixedStep(256)));
                double prev = 0;
                for (int n : new int[] {1, 8, 64, 256, 1024}) {
                    double us = positive(est.stepTime(decodes(n, 4096)));
                    assertTrue(us > prev, model + " batch " + n + ": " + us + " not above " + prev);
                    prev = us;
                }
                prev = 0;
                for (long c : new long[] {128, 1024, 8192, 32768}) {
                    double us = positive(est.stepTime(decodes(64, c)));
                    assertTrue(us > prev, model + " context " + c + ": " + us + " not above " + prev);
                    prev = us;
                }
            }
        }
    }

    @Test
    void emptyStepCostsTheEnginesPerStepTerm() {
        try (Estimator est = new Estimator(roofline().engine("{\"base\": \"vllm\", \"step_us\": 250}"))) {
            assertEquals(250.0, est.stepTime(new Requests()));
            assertTrue(est.stepTime(decodeStep()) > 250.0);
        }
    }

    @Test
    void calibrationScalesTheFamiliesItNames() {
        String doubled = "{\"mfusim_calibration\": 1, \"efficiency\": {\"decode_attention\": 2.0}}";
        try (Estimator base = new Estimator(roofline()); Estimator cal = new Estimator(roofline().calibration(doubled))) {
            Requests step = decodes(64, 4096);
            StepDetail b = base.stepDetail(step), c = cal.stepDetail(step);
            double attention = b.op(2).timeUs();
            assertEquals("attn_decode", b.op(2).name());
            assertTrue(attention > 0);
            assertEquals(2 * attention, c.op(2).timeUs(), 1e-9 * attention);
            assertEquals(b.totalUs() + attention, c.totalUs(), 1e-9 * c.totalUs());
        }
        MfusimException e = assertThrows(MfusimException.class, () -> new Estimator(
                roofline().calibration("{\"mfusim_calibration\": 1, \"efficiency\": {\"gemm\": 9}}")));
        assertEquals(Status.CONFIG, e.status());
        assertTrue(e.getMessage().contains("efficiency.gemm"), e.getMessage());
    }

    @Test
    void batchEqualsSingleCallsBitForBit() {
        for (Mode mode : Mode.values()) {
            try (Estimator est = new Estimator(mode == Mode.ROOFLINE ? roofline() : compat())) {
                Requests[] steps = {decodeStep(), mixedStep(256), new Requests(), mixedStep(17),
                                    new Requests().addPrefill(4096, 0, true)};
                Requests all = new Requests();
                long[] sizes = new long[steps.length];
                for (int i = 0; i < steps.length; i++) {
                    all.addAll(steps[i]);
                    sizes[i] = steps[i].size();
                }
                double[] out = new double[steps.length];
                est.stepTimeBatch(all, sizes, out);
                for (int i = 0; i < steps.length; i++) {
                    assertEquals(Double.doubleToRawLongBits(est.stepTime(steps[i])), Double.doubleToRawLongBits(out[i]),
                            "step " + i);
                }
                // An empty step: the engine's fixed per-step cost in roofline mode (0 for the fitted vllm profile),
                // 0 in compat mode.
                assertEquals(0.0, out[2], mode + ": empty step " + out[2]);
            }
        }
    }

    @Test
    void errorsAreTypedExceptionsWithTheLibraryMessage() {
        MfusimException e = assertThrows(MfusimException.class,
                () -> new Estimator(new Options("no-such-model-xyz", "H100")));
        assertEquals(Status.UNKNOWN_NAME, e.status());
        assertEquals(5, e.code());
        assertTrue(e.getMessage().contains("no-such-model-xyz"), e.getMessage());
        assertEquals(Status.UNKNOWN_NAME,
                assertThrows(MfusimException.class, () -> new Estimator(new Options("qwen3-8b", "no-gpu"))).status());
        assertEquals(Status.INVALID_ARGUMENT,
                assertThrows(MfusimException.class, () -> new Estimator(roofline().tensorParallel(0))).status());
        assertEquals(Status.UNSUPPORTED, assertThrows(MfusimException.class,
                () -> new Estimator(new Options("qwen3-8b", "H100").mode(Mode.INFERSIM))).status());

        try (Estimator est = new Estimator(roofline())) {
            e = assertThrows(MfusimException.class, () -> est.stepTime(new Requests().addDecode(5).add(-3, 0, 0)));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("request 1"), e.getMessage());

            double[] out = {-1, -1};
            Requests two = new Requests().addDecode(1).add(1, -1, 0);
            e = assertThrows(MfusimException.class, () -> est.stepTimeBatch(two, new long[] {1, 1}, out));
            assertTrue(e.getMessage().contains("step 1"), e.getMessage());
            assertArrayEquals(new double[] {-1, -1}, out, "out written on failure");
            // The library checks the step sizes against requests.size(), naming the step at fault.
            e = assertThrows(MfusimException.class, () -> est.stepTimeBatch(decodeStep(), new long[] {1, 1}, out));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("step 1"), e.getMessage());
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(MfusimException.class,
                    () -> est.stepTimeBatch(decodes(3, 100), new long[] {1, 1}, out)).status());
            assertArrayEquals(new double[] {-1, -1}, out, "out written on failure");
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(MfusimException.class,
                    () -> est.stepTimeBatch(decodeStep(), new long[] {1}, new double[0])).status());
            assertThrows(NullPointerException.class, () -> est.stepTimeBatch(decodeStep(), null, out));
        }
    }

    @Test
    void stepDetailMatchesStepTime() {
        try (Estimator est = new Estimator(roofline())) {
            Requests mixed = mixedStep(256);
            StepDetail d = est.stepDetail(mixed);
            assertEquals(est.stepTime(mixed), d.totalUs());
            assertEquals(io.mfusim.swig.MfusimNativeConstants.MFUSIM_OP_COUNT, d.opCount());
            assertTrue(d.opCount() <= io.mfusim.swig.MfusimNativeConstants.MFUSIM_OP_CAPACITY);
            assertEquals("qkv_proj", d.op(0).name());
            boolean some = false;
            for (int i = 0; i < d.opCount(); i++) {
                assertTrue(d.op(i).timeUs() >= 0);
                assertFalse(d.op(i).source().isEmpty());
                some |= d.op(i).timeUs() > 0;
            }
            assertTrue(some);
            assertFalse(d.bound().isEmpty());
        }
    }

    @Test
    void estimatesReportValuesByName() {
        for (Options o : new Options[] {roofline(), compat()}) {
            try (Estimator est = new Estimator(o)) {
                Report r = est.estimate(new Scenario());
                positive(r.value("prefill.ttft_ms"));
                positive(r.value("decode.tpot_ms"));
                assertEquals(Status.NOT_FOUND,
                        assertThrows(MfusimException.class, () -> r.value("no.such.quantity")).status());
                assertFalse(r.values().isEmpty());
                assertNotNull(r.warnings());
                assertNotNull(r.softErrors());
            }
        }
        try (Estimator est = new Estimator(roofline())) {
            Scenario s = new Scenario();
            s.inputLen = -1;
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(MfusimException.class, () -> est.estimate(s)).status());
        }
    }

    @Test
    void concurrentUseGivesIdenticalResults() throws Exception {
        try (Estimator est = new Estimator(roofline())) {
            Requests[] steps = {decodeStep(), mixedStep(256), mixedStep(64), decodes(128, 1000)};
            double[] want = new double[steps.length];
            for (int i = 0; i < steps.length; i++) want[i] = est.stepTime(steps[i]);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    final int seed = t;
                    done.add(pool.submit(() -> {
                        double[] out = new double[1];
                        for (int k = 0; k < 500; k++) {
                            int i = (seed + k) % steps.length;
                            assertEquals(want[i], est.stepTime(steps[i]));
                            est.stepTimeBatch(steps[i], new long[] {steps[i].size()}, out);
                            assertEquals(want[i], out[0]);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) f.get();
            } finally {
                pool.shutdown();
            }
        }
    }

    @Test
    void closeIsIdempotent() {
        Estimator est = new Estimator(roofline());
        est.close();
        est.close();
        assertThrows(IllegalStateException.class, () -> est.stepTime(decodeStep()));
    }

    @Test
    void hotPathAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Estimator est = new Estimator(roofline())) {
            Requests one = decodeStep();
            Requests mixed = mixedStep(256);
            Requests both = new Requests().addAll(mixed).addAll(one);
            long[] sizes = {256, 1};
            double[] out = new double[2];
            double sink = 0;
            for (int warm = 0; warm < 20_000; warm++) { // let the JIT compile the path
                sink += est.stepTime(one) + est.stepTime(mixed);
                est.stepTimeBatch(both, sizes, out);
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 10_000; i++) {
                sink += est.stepTime(one) + est.stepTime(mixed);
                est.stepTimeBatch(both, sizes, out);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            assertTrue(sink > 0);
            // 30,000 calls: a single allocation per call would be >= 480 KB. Allow the measuring itself a little.
            assertTrue(allocated < 4096, allocated + " bytes allocated by 30,000 hot-path calls");
        }
    }

    @Test
    void newOptionsAndServingEstimate() {
        double base, bare;
        try (Estimator est = new Estimator(roofline())) {
            base = positive(est.stepTime(decodeStep()));
            ServingResult r = est.servingEstimate(new Serving());
            assertTrue(r.ttftMs() > 0 && r.tpotMs() > 0, r.toString());
            assertNotEquals(ServingResult.Limit.UNKNOWN, r.limitedBy());
            MfusimException e = assertThrows(MfusimException.class, () -> est.servingEstimate(new Serving().outputLen(0)));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertFalse(e.getMessage().isEmpty());
        }
        try (Estimator est = new Estimator(roofline().engine("none").quant("fp8").expertParallel(1)
                .attentionDataParallel(1))) {
            bare = positive(est.stepTime(decodeStep()));
        }
        assertTrue(bare < base, "engine none " + bare + " us, default engine " + base + " us");
        assertThrows(MfusimException.class, () -> new Estimator(roofline().engine("no-such-engine")));
        try (Estimator est = new Estimator(compat())) {
            MfusimException e = assertThrows(MfusimException.class, () -> est.servingEstimate(new Serving()));
            assertEquals(Status.UNSUPPORTED, e.status());
        }
    }

    /**
     * mfusim_disagg_estimate through the binding (docs/disagg.md): every field lands where the C struct puts it (TTFT
     * is its five parts; E2E and throughput follow from TTFT, TPOT and the GPUs of both pools), TTFT grows with the
     * prompt, more prefill workers cut the prefill queue, and bad inputs throw the library's error.
     */
    @Test
    void disaggEstimate() {
        DisaggServing d = new DisaggServing();
        assertTrue(d.inputLen > 0 && d.outputLen > 0 && d.concurrency > 0);
        assertEquals(1, d.prefillWorkers);
        assertEquals(1, d.decodeWorkers);
        try (Estimator prefill = new Estimator(roofline());
             Estimator decode = new Estimator(roofline().tensorParallel(2))) {
            DisaggServing w = new DisaggServing().inputLen(2048).outputLen(256).concurrency(32).decodeBatch(64);
            DisaggResult r = Estimator.disaggEstimate(prefill, decode, w);
            for (double v : new double[] {r.ttftMs(), r.tpotMs(), r.prefillMs(), r.transferMs(), r.kvTransferBytes()}) {
                positive(v);
            }
            double parts = r.admissionMs() + r.prefillQueueMs() + r.prefillMs() + r.transferMs() + r.decodeWaitMs();
            assertEquals(parts, r.ttftMs(), 1e-9 * parts, r.toString());
            double e2e = r.ttftMs() + 255 * r.tpotMs();
            assertEquals(e2e, r.e2eMs(), 1e-9 * e2e);
            double perGpu = r.requestsPerSec() * 256 / 3;
            assertEquals(perGpu, r.outputTokensPerSecPerGpu(), 1e-9 * perGpu);
            assertEquals(1, r.prefillGpus());
            assertEquals(2, r.decodeGpus());
            assertFalse(r.transferOverNetwork());

            DisaggResult longer = Estimator.disaggEstimate(prefill, decode, w.inputLen(8192));
            assertTrue(longer.prefillMs() > r.prefillMs() && longer.ttftMs() > r.ttftMs(), longer + " vs " + r);
            w.inputLen(2048);
            DisaggResult more = Estimator.disaggEstimate(prefill, decode, w.prefillWorkers(4));
            assertTrue(more.prefillQueueMs() < r.prefillQueueMs(), more + " vs " + r);

            MfusimException e = assertThrows(MfusimException.class,
                    () -> Estimator.disaggEstimate(prefill, decode, w.prefillWorkers(0)));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            assertTrue(e.getMessage().contains("prefill_workers"), e.getMessage());
        }
        try (Estimator compat = new Estimator(compat())) {
            MfusimException e = assertThrows(MfusimException.class,
                    () -> Estimator.disaggEstimate(compat, compat, new DisaggServing()));
            assertEquals(Status.UNSUPPORTED, e.status());
        }
    }

    /** Each field of mfusim_disagg_result reaches its own accessor: a distinct value per C field, read back. */
    @Test
    void disaggResultCopiesEachFieldToItsOwnAccessor() {
        io.mfusim.swig.DisaggResult n = new io.mfusim.swig.DisaggResult();
        try {
            n.setTtft_ms(1); n.setTpot_ms(2); n.setE2e_ms(3); n.setOutput_throughput_tok_s_gpu(4);
            n.setRequest_throughput_req_s(5); n.setAdmission_ms(6); n.setPrefill_queue_ms(7); n.setPrefill_ms(8);
            n.setTransfer_ms(9); n.setDecode_wait_ms(10); n.setPrefill_batch_ms(11); n.setPrompts_per_batch(12);
            n.setPrefill_utilization(13); n.setDecode_step_ms(14); n.setDecode_batch(15); n.setDecode_slots(16);
            n.setKv_transfer_bytes(17); n.setTransfer_over_network(1); n.setPrefill_gpus(18); n.setDecode_gpus(19);
            DisaggResult r = new DisaggResult(n);
            assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17},
                    new double[] {r.ttftMs(), r.tpotMs(), r.e2eMs(), r.outputTokensPerSecPerGpu(), r.requestsPerSec(),
                        r.admissionMs(), r.prefillQueueMs(), r.prefillMs(), r.transferMs(), r.decodeWaitMs(),
                        r.prefillBatchMs(), r.promptsPerBatch(), r.prefillUtilization(), r.decodeStepMs(),
                        r.decodeBatch(), r.decodeSlots(), r.kvTransferBytes()});
            assertTrue(r.transferOverNetwork());
            assertEquals(18, r.prefillGpus());
            assertEquals(19, r.decodeGpus());
        } finally {
            n.delete();
        }
    }
}
