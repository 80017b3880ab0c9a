package io.aloft.omb;

/** Command-line entry point of the OpenMessaging Benchmark runner. */
public final class OmbMain {
    private OmbMain() {
    }

    public static void main(String[] args) {
        System.err.println("usage: aloft-omb run|compare ... (not implemented yet)");
        System.exit(2);
    }
}
