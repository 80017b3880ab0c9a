package io.aloft.autoscaler;

import java.io.PrintStream;

/** Lets tests in other packages run the command line in-process (its entry point is package-private). */
public final class AutoscalerMainAccess {
    private AutoscalerMainAccess() {}

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return AutoscalerMain.run(args, out, err);
    }
}
