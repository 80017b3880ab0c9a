package io.aloft.controller;

import io.aloft.controller.server.ControllerServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * One controller voter in its own JVM, for {@link VoterCrashTest} to SIGKILL.
 *
 * <p>Arguments: node id, {@code controller.quorum.voters}, data dir. Prints {@code READY} once the
 * voter runs. Commands arrive on standard input, one a line:
 * {@code STATUS <file>} writes "{@code <lastAppliedIndex> <isLeader>}", a newline, then the
 * state dump, to the file (atomically: written aside, then renamed, so the test never reads half of
 * it). End of input means the test JVM is gone: the voter halts at once, so it never outlives it.
 */
public final class ControllerVoterChild {
    private ControllerVoterChild() {
    }

    public static void main(String[] args) throws Exception {
        ControllerConfig config = ControllerConfig.builder()
                .nodeId(Integer.parseInt(args[0]))
                .voters(args[1])
                .dataDir(Path.of(args[2]))
                .requestTimeoutMs(30_000)
                .build();
        ControllerServer server = ControllerServer.start(config);
        System.out.println("READY");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("STATUS ")) {
                Path file = Path.of(line.substring("STATUS ".length()));
                Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                Files.writeString(tmp, status(server));
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // Not a clean close (which would take a snapshot): the parent died, and so does this voter.
        Runtime.getRuntime().halt(3);
    }

    /** The applied index and the dump of one moment: retried until no entry was applied in between. */
    private static String status(ControllerServer server) throws Exception {
        while (true) {
            long applied = server.lastAppliedIndex();
            String dump = server.state().dump();
            if (server.lastAppliedIndex() == applied) {
                return applied + " " + server.isLeader() + "\n" + dump;
            }
        }
    }
}
