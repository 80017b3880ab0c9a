package io.aloft.broker;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

/**
 * Runs a Kafka command-line tool's {@code main} (first argument; the rest are the tool's) in a
 * child JVM that dies with the test JVM that started it. The tools are not ours to change, and some
 * read standard input (the console producer), so end of input cannot be the signal here: the
 * launcher watches its parent process instead and halts when it is gone.
 *
 * <p>Depends on the JDK only: {@link KafkaCli} puts this one class next to Kafka's jars, so the
 * tool sees Kafka's class path and nothing of Aloft's.
 */
public final class KafkaToolLauncher {
    private KafkaToolLauncher() {
    }

    public static void main(String[] args) throws Throwable {
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        if (parent == null || !parent.isAlive()) {
            Runtime.getRuntime().halt(3);
        }
        parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3));
        MethodHandle main = MethodHandles.publicLookup().findStatic(Class.forName(args[0]), "main",
                MethodType.methodType(void.class, String[].class));
        String[] toolArgs = Arrays.copyOfRange(args, 1, args.length);
        main.invokeExact(toolArgs); // exact: some tools declare main(String...), a varargs handle
    }
}
