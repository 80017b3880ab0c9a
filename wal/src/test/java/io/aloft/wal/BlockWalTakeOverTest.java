package io.aloft.wal;

import static io.aloft.wal.WalTestSupport.recoverAll;
import static io.aloft.wal.WalTestSupport.smallConfig;
import static io.aloft.wal.WalTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockWalTakeOverTest {
    @TempDir
    Path dir;

    @Test
    void takeOver_deadOwnersUntrimmedRecords_thenRelease_ownerReopensWithNothingToReplay() throws Exception {
        WalConfig config = smallConfig(dir).build();
        long secondOffset;
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.append(text("uploaded")).get(5, TimeUnit.SECONDS);
            secondOffset = wal.append(text("acknowledged-1")).get(5, TimeUnit.SECONDS);
            wal.append(text("acknowledged-2")).get(5, TimeUnit.SECONDS);
            wal.trim(secondOffset).get(5, TimeUnit.SECONDS);
        }
        try (BlockWalTakeOver taken = BlockWalTakeOver.tryTakeOver(config.path(), true)) {
            assertNotNull(taken);
            assertEquals(List.of("acknowledged-1", "acknowledged-2"),
                    taken.records().stream().map(r -> text(r.body())).toList());
            assertEquals(secondOffset, taken.records().get(0).offset());
            taken.release();
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(List.of(), recoverAll(wal), "released records are not replayed again");
            long next = wal.append(text("after")).get(5, TimeUnit.SECONDS);
            assertTrue(next > secondOffset);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(List.of("after"), recoverAll(wal).stream().map(r -> text(r.body())).toList(),
                    "the owner's log goes on after a take-over");
        }
    }

    @Test
    void takeOverNotReleased_isReadAgainByTheNextTakeOverAndByTheOwner() throws Exception {
        WalConfig config = smallConfig(dir).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.append(text("a")).get(5, TimeUnit.SECONDS);
        }
        try (BlockWalTakeOver taken = BlockWalTakeOver.tryTakeOver(config.path(), true)) {
            assertEquals(1, taken.records().size());
        } // the recovering broker died before committing: no release
        try (BlockWalTakeOver taken = BlockWalTakeOver.tryTakeOver(config.path(), true)) {
            assertEquals(List.of("a"), taken.records().stream().map(r -> text(r.body())).toList());
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            assertEquals(List.of("a"), recoverAll(wal).stream().map(r -> text(r.body())).toList());
        }
    }

    @Test
    void whileTakenOver_anotherTakeOverIsRefused_andTheOwnersOpenWaitsForIt() throws Exception {
        WalConfig config = smallConfig(dir).build();
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            wal.append(text("a")).get(5, TimeUnit.SECONDS);
        }
        BlockWalTakeOver taken = BlockWalTakeOver.tryTakeOver(config.path(), true);
        CompletableFuture<BlockDeviceWal> open;
        try {
            assertNull(BlockWalTakeOver.tryTakeOver(config.path(), true), "one take-over at a time");
            open = CompletableFuture.supplyAsync(() -> {
                try {
                    return BlockDeviceWal.open(config);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            TimeUnit.MILLISECONDS.sleep(300);
            assertFalse(open.isDone(), "the owner's open waits for the take-over");
            taken.release();
        } finally {
            taken.close();
        }
        try (BlockDeviceWal wal = open.get(10, TimeUnit.SECONDS)) {
            assertEquals(List.of(), recoverAll(wal));
        }
    }

    @Test
    void pausedOwner_findsTheFenceAndFails_acknowledgingNothingMore() throws Exception {
        WalConfig config = smallConfig(dir).build();
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        try (BlockDeviceWal zombie = BlockDeviceWal.builder(config)
                .failureListener((path, cause) -> failure.complete(cause)).open()) {
            long offset = zombie.append(text("before")).get(5, TimeUnit.SECONDS);
            try (BlockWalTakeOver taken = BlockWalTakeOver.tryTakeOver(config.path(), true)) {
                assertEquals(List.of("before"), taken.records().stream().map(r -> text(r.body())).toList());
                taken.release();
            }
            // The periodic header check finds the take-over's epoch within about a second.
            Throwable cause = failure.get(10, TimeUnit.SECONDS);
            assertInstanceOf(WalTakenOverException.class, cause);
            ExecutionException append = assertThrows(ExecutionException.class,
                    () -> zombie.append(text("after")).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, append.getCause());
            ExecutionException trim = assertThrows(ExecutionException.class,
                    () -> zombie.trim(offset + 1).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, trim.getCause());
        }
    }

    @Test
    void trimOfAPausedOwner_doesNotOverwriteTheFence() throws Exception {
        WalConfig config = smallConfig(dir).build();
        try (BlockDeviceWal zombie = BlockDeviceWal.open(config)) {
            zombie.append(text("a")).get(5, TimeUnit.SECONDS);
            long b = zombie.append(text("b")).get(5, TimeUnit.SECONDS);
            BlockWalTakeOver.tryTakeOver(config.path(), true).close(); // fenced, not released
            // A trim right away (before the periodic check) meets the fence under the header lock.
            ExecutionException trim = assertThrows(ExecutionException.class,
                    () -> zombie.trim(b).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, trim.getCause());
        }
        try (BlockWalTakeOver taken = BlockWalTakeOver.tryTakeOver(config.path(), true)) {
            assertEquals(List.of("a", "b"), taken.records().stream().map(r -> text(r.body())).toList(),
                    "the zombie's trim was not written over the fence");
        }
    }
}
