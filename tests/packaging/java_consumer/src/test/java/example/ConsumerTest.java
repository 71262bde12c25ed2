package example;

import static org.junit.jupiter.api.Assertions.*;

import io.mfusim.Estimator;
import io.mfusim.MfusimException;
import io.mfusim.Options;
import io.mfusim.Requests;
import io.mfusim.Serving;
import io.mfusim.ServingResult;
import io.mfusim.Status;
import org.junit.jupiter.api.Test;

class ConsumerTest {
    @Test
    void predictsAStepAndAServingWorkload() {
        try (Estimator est = new Estimator(new Options("llama-3.1-8b-instruct", "H100"))) {
            double us = est.stepTime(new Requests().addPrefill(512, 0, true).addDecode(2048));
            assertTrue(us > 0 && Double.isFinite(us), "step time " + us);
            ServingResult r = est.servingEstimate(new Serving());
            System.out.printf("libmfusim %s (Java, jar-bundled JNI): mixed step %.3f us; %s%n", Estimator.version(), us, r);
        }
        MfusimException e = assertThrows(MfusimException.class,
                () -> new Estimator(new Options("no-such-model", "H100")));
        assertEquals(Status.UNKNOWN_NAME, e.status());
    }
}
