package io.mfusim;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The named quantities of an estimate (the oracle's column names, e.g. {@code prefill.ttft_ms}), copied out of the
 * native report, which is freed at once: a plain immutable Java value.
 */
public final class Report {
    private final Map<String, Double> values;
    private final String warnings;
    private final String softErrors;

    Report(Map<String, Double> values, String warnings, String softErrors) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.warnings = warnings;
        this.softErrors = softErrors;
    }

    /** A quantity by name; {@link Status#NOT_FOUND} if the report lacks it (a phase that did not run). */
    public double value(String name) {
        Double v = values.get(name);
        if (v == null) {
            throw new MfusimException(Status.NOT_FOUND, "the report has no quantity named \"" + name + "\"");
        }
        return v;
    }

    /** All quantities, in the library's order. */
    public Map<String, Double> values() {
        return values;
    }

    /** Warnings joined by " | "; "" if none. */
    public String warnings() {
        return warnings;
    }

    /** Soft errors joined by " | "; "" if none. */
    public String softErrors() {
        return softErrors;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
