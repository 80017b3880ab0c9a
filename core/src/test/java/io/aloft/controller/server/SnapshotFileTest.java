package io.aloft.controller.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.Request;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.state.ControllerSnapshot;
import io.aloft.controller.state.ControllerState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The snapshot file: its layout, and the clear refusals of what this build cannot read. */
class SnapshotFileTest {
    @TempDir
    Path dir;

    private static ControllerSnapshot sample() {
        ControllerState state = new ControllerState();
        state.apply(1, new Request(new UUID(1, 1), 1, 5, new PutKv("k", new byte[] {1})), e -> { });
        return state.snapshot();
    }

    private byte[] written() throws IOException {
        Path file = dir.resolve("snapshot");
        SnapshotFile.write(file, ControllerSchemas.CODEC, sample(), 1);
        return Files.readAllBytes(file);
    }

    private IOException readFails(byte[] bytes) throws IOException {
        Path file = dir.resolve("bad");
        Files.write(file, bytes);
        return assertThrows(IOException.class, () -> SnapshotFile.read(file, ControllerSchemas.CODEC));
    }

    @Test
    void aSnapshotReadsBackAsWritten_withMagicVersionCrcAndFrame() throws IOException {
        Path file = dir.resolve("snapshot");
        SnapshotFile.write(file, ControllerSchemas.CODEC, sample(), 1);
        assertEquals(sample().dump(), SnapshotFile.read(file, ControllerSchemas.CODEC).dump());
        byte[] bytes = Files.readAllBytes(file);
        assertEquals("ALFTSNAP", new String(bytes, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(2, bytes[8]);
        assertEquals((byte) 0xAC, bytes[13], "the frame's magic follows the CRC");
    }

    @Test
    void aPreReleaseSnapshotIsRefusedWithAClearMessage() throws IOException {
        byte[] bytes = written();
        bytes[8] = 1;
        assertTrue(readFails(bytes).getMessage().contains("pre-release format"));
    }

    @Test
    void corruptionAndForeignFilesAreRefused() throws IOException {
        byte[] flipped = written();
        flipped[flipped.length - 1] ^= 1;
        assertTrue(readFails(flipped).getMessage().contains("CRC"));
        byte[] newer = written();
        newer[8] = 3;
        assertTrue(readFails(newer).getMessage().contains("format version 3"));
        assertTrue(readFails(new byte[] {'n', 'o', 't'}).getMessage().contains("not an Aloft controller snapshot"));
    }

    @Test
    void aSnapshotOfAHigherFeatureLevelIsRefusedNamingTheLevel() throws IOException {
        // As the next build writes it after an upgrade: its frame header declares a level above this build's.
        byte[] bytes = written();
        bytes[SnapshotFile.FRAME_OFFSET + 3] = (byte) (FeatureLevel.LATEST + 1);
        CRC32C crc = new CRC32C();
        crc.update(bytes, SnapshotFile.FRAME_OFFSET, bytes.length - SnapshotFile.FRAME_OFFSET);
        ByteBuffer.wrap(bytes, SnapshotFile.CRC_OFFSET, SnapshotFile.CRC_LENGTH).putInt((int) crc.getValue());
        IOException e = readFails(bytes);
        assertTrue(e.getMessage().contains("feature level " + (FeatureLevel.LATEST + 1)), e.getMessage());
    }
}
