package io.mfusim;

/**
 * A failed libmfusim call: the status and the library's message naming the input at fault. Unchecked: a bad model
 * name or request is a programming or configuration error, and the step methods are called in tight loops.
 */
public class MfusimException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;

    /** Thrown from the JNI layer with the C status and message. */
    MfusimException(int code, String message) {
        super(message);
        this.code = code;
    }

    MfusimException(Status status, String message) {
        this(status.code(), message);
    }

    /** The status. */
    public Status status() {
        return Status.of(code);
    }

    /** The C status code. */
    public int code() {
        return code;
    }

    @Override
    public String toString() {
        return "MfusimException[" + status() + "]: " + getMessage();
    }
}
