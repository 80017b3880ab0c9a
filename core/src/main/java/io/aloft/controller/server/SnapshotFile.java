package io.aloft.controller.server;

import io.aloft.controller.codec.ControllerCodec;
import io.aloft.controller.codec.MalformedDataException;
import io.aloft.controller.state.ControllerSnapshot;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The controller's snapshot file: the whole state at one log index.
 *
 * <pre>
 * OFFSET  LENGTH  FIELD
 * 0       8       MAGIC "ALFTSNAP" (ASCII)
 * 8       1       VERSION, 2 (1 was the pre-release reflective format, refused with a clear message)
 * 9       4       CRC32C of the FRAME bytes, big-endian
 * 13      ...     FRAME: a {@link ControllerCodec} frame holding a {@code ControllerSnapshot}, written
 *                 at the cluster's finalized feature level
 * </pre>
 * Ratis's MD5 file beside it guards the file as a whole too; the CRC makes the file
 * self-checking when copied without it (golden fixtures, a snapshot inspected by hand).
 *
 * <p>Thread-safe: static functions.
 */
public final class SnapshotFile {
    static final byte[] MAGIC = {'A', 'L', 'F', 'T', 'S', 'N', 'A', 'P'};
    static final int MAGIC_OFFSET = 0;
    static final int MAGIC_LENGTH = 8;
    static final int VERSION_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    static final int VERSION_LENGTH = 1;
    static final int CRC_OFFSET = VERSION_OFFSET + VERSION_LENGTH;
    static final int CRC_LENGTH = 4;
    static final int FRAME_OFFSET = CRC_OFFSET + CRC_LENGTH;
    static final byte VERSION = 2;
    static final byte PRE_RELEASE_VERSION = 1;

    private SnapshotFile() {
    }

    /** Writes {@code snapshot} to {@code file} durably: written aside with SYNC, then renamed over it. */
    static void write(Path file, ControllerCodec codec, ControllerSnapshot snapshot, int level) throws IOException {
        byte[] frame = codec.encode(snapshot, level, level);
        CRC32C crc = new CRC32C();
        crc.update(frame);
        ByteBuffer header = ByteBuffer.allocate(FRAME_OFFSET);
        header.put(MAGIC).put(VERSION).putInt((int) crc.getValue());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
            out.write(header.array());
            out.write(frame);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Reads a snapshot file.
     *
     * @throws IOException naming the file and what is wrong: not a snapshot, the pre-release
     *     format, a newer format or feature level than this build reads, a CRC mismatch, or a
     *     frame that does not decode
     */
    public static ControllerSnapshot read(Path file, ControllerCodec codec) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length < FRAME_OFFSET
                || !Arrays.equals(bytes, MAGIC_OFFSET, MAGIC_LENGTH, MAGIC, 0, MAGIC_LENGTH)) {
            throw new IOException("snapshot " + file + " is not an Aloft controller snapshot");
        }
        byte version = bytes[VERSION_OFFSET];
        if (version == PRE_RELEASE_VERSION) {
            throw new IOException("snapshot " + file + " was " + ControllerCodec.PRE_RELEASE_FORMAT);
        }
        if (version != VERSION) {
            throw new IOException("snapshot " + file + " has format version " + version + "; this build reads "
                    + VERSION);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, FRAME_OFFSET, bytes.length - FRAME_OFFSET);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, CRC_OFFSET, CRC_LENGTH).getInt()) {
            throw new IOException("snapshot " + file + " fails its CRC: corrupted");
        }
        byte[] frame = Arrays.copyOfRange(bytes, FRAME_OFFSET, bytes.length);
        try {
            int level = codec.header(frame).level();
            if (level > codec.registry().supported().maxLevel()) {
                throw new IOException("snapshot " + file + " holds records of feature level " + level
                        + "; this build reads " + codec.registry().supported()
                        + ": run a build that supports the cluster's feature level");
            }
            return codec.decode(frame, ControllerSnapshot.class);
        } catch (MalformedDataException e) {
            throw new IOException("snapshot " + file + " does not decode: " + e.getMessage(), e);
        }
    }
}
