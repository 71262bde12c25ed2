package io.mfusim;

/** Which model answers queries. */
public enum Mode {
    /** The per-step model for simulators (the default). */
    ROOFLINE,
    /** InferSim number for number, quirks included. */
    INFERSIM
}
