package io.aloft.controller.server;

import io.aloft.controller.codec.ControllerCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The marker file that says which controller data format a {@code metadata.log.dir} holds. Written
 * before Raft storage is formatted; a voter refuses to start on existing Raft storage without it
 * (a data dir of the pre-release format, which had no marker) or with another format, instead of
 * rejecting every old log entry one by one and running with an empty state.
 *
 * <p>Content: one line, {@code aloft.controller.format=1}.
 *
 * <p>Thread-safe: static functions.
 */
final class DataDirFormat {
    static final String FILE_NAME = "aloft-controller.format";
    static final int FORMAT = 1;
    private static final String CONTENT = "aloft.controller.format=" + FORMAT + "\n";

    private DataDirFormat() {
    }

    /**
     * Checks the data dir before Ratis opens it.
     *
     * @param existingStorage whether Raft storage is already there (else it is about to be formatted)
     * @throws IOException when the storage is of another format
     */
    static void check(Path dataDir, boolean existingStorage) throws IOException {
        Path marker = dataDir.resolve(FILE_NAME);
        if (!existingStorage) {
            Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
            Files.writeString(tmp, CONTENT, StandardCharsets.UTF_8);
            Files.move(tmp, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        if (!Files.exists(marker)) {
            throw new IOException("controller data dir " + dataDir + " has Raft storage but no " + FILE_NAME
                    + " file: it was " + ControllerCodec.PRE_RELEASE_FORMAT);
        }
        String content = Files.readString(marker, StandardCharsets.UTF_8);
        if (!content.equals(CONTENT)) {
            throw new IOException("controller data dir " + dataDir + " is of format '" + content.trim()
                    + "'; this build reads " + CONTENT.trim());
        }
    }
}
