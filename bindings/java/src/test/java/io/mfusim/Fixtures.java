package io.mfusim;

/** The configurations and steps every binding tests and benchmarks (bindings/README.md, "Shared fixtures"). */
final class Fixtures {
    private Fixtures() {}

    static Options roofline() {
        return new Options("llama-3.1-8b-instruct", "H100");
    }

    static Options compat() {
        return new Options("qwen3-8b", "H20").mode(Mode.INFERSIM);
    }

    /** 4 prefill chunks of 512 over 0/1024/2048/3072 cached tokens (even ones not their prompt's last), then
     * decodes over 256 + (i*97 mod 8192) tokens. */
    static Requests mixedStep(int n) {
        Requests r = new Requests(n);
        for (int i = 0; i < n; i++) {
            if (i < 4) {
                r.addPrefill(512, 1024L * i, i % 2 == 1);
            } else {
                r.addDecode(256 + (i * 97L) % 8192);
            }
        }
        return r;
    }

    static Requests decodeStep() {
        return new Requests(1).addDecode(2048);
    }

    static Requests decodes(int n, long context) {
        Requests r = new Requests(n);
        for (int i = 0; i < n; i++) r.addDecode(context);
        return r;
    }
}
