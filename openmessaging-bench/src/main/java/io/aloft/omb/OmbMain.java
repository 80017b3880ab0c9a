package io.aloft.omb;

import io.aloft.omb.compare.CompareCommand;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * Command-line entry point of the OpenMessaging Benchmark runner: {@code aloft-omb COMMAND
 * [options]}. Each command is one class with a static {@code execute(args, out, err)} returning
 * the exit code; {@link #run} dispatches on the first argument.
 */
public final class OmbMain {
    private OmbMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs a command and returns its exit code (2 for a usage error), without exiting the JVM. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println(usage());
            return 2;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            switch (args[0]) {
                case "run":
                    return RunCommand.execute(rest, out, err);
                case "compare":
                    return CompareCommand.run(rest);
                case "help":
                case "--help":
                case "-h":
                    out.println(usage());
                    return 0;
                default:
                    err.println("error: unknown command '" + args[0] + "'");
                    err.println(usage());
                    return 2;
            }
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.println(usage());
            return 2;
        }
    }

    static String usage() {
        return "usage: aloft-omb COMMAND [options]\n\ncommands:\n  " + RunCommand.USAGE.replace("\n", "\n  ")
                + "\n  compare [options]   Aloft and Apache Kafka side by side (aloft-omb compare --help)";
    }
}
