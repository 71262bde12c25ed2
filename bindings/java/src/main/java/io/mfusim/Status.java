package io.mfusim;

/** A libmfusim status code; the numbers are stable (only ever appended). */
public enum Status {
    OK(0),
    INVALID_ARGUMENT(1),
    IO(2),
    PARSE(3),
    CONFIG(4),
    UNKNOWN_NAME(5),
    UNSUPPORTED(6),
    COMPAT_CRASH(7),
    STRUCT_SIZE(8),
    OUT_OF_MEMORY(9),
    INTERNAL(10),
    NOT_FOUND(11),
    /** A code this binding does not know (a newer library); {@link MfusimException#code()} has the number. */
    UNKNOWN(-1);

    private final int code;

    Status(int code) {
        this.code = code;
    }

    /** The C status code. */
    public int code() {
        return code;
    }

    static Status of(int code) {
        for (Status s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
