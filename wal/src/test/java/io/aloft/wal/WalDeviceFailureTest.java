package io.aloft.wal;

import static io.aloft.wal.WalTestSupport.recoverAll;
import static io.aloft.wal.WalTestSupport.smallConfig;
import static io.aloft.wal.WalTestSupport.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.wal.device.FaultyFileChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WAL whose device starts failing mid-run: every pending and later append fails, the failure
 * listener hears of it exactly once, and what was acknowledged before is recovered intact.
 *
 * <p>The device fault is a {@link FaultyFileChannel} at the WAL's channel-opener seam (a real
 * device cannot be made to fail mid-run without root); everything else is the real WAL on a real
 * file.
 */
class WalDeviceFailureTest {
    @TempDir
    Path dir;

    private record Failure(Path path, Throwable cause, String thread) {
    }

    /** Records every call; {@link #first} completes with the first (the listener runs after the futures fail). */
    private static final class Recorder implements WalFailureListener {
        final List<Failure> calls = new CopyOnWriteArrayList<>();
        final CompletableFuture<Failure> first = new CompletableFuture<>();

        @Override
        public void walFailed(Path path, Throwable cause) {
            Failure f = new Failure(path, cause, Thread.currentThread().getName());
            calls.add(f);
            first.complete(f);
        }
    }

    @Test
    void append_deviceWriteFails_failsThisAndLaterAppendsAndTellsListenerOnce() throws Exception {
        WalConfig config = smallConfig(dir).build();
        AtomicBoolean broken = new AtomicBoolean();
        Recorder listener = new Recorder();
        List<Long> acked = new ArrayList<>();
        try (BlockDeviceWal wal = BlockDeviceWal.builder(config).channelOpener(FaultyFileChannel.opener(broken::get))
                .failureListener(listener).open()) {
            for (int i = 0; i < 20; i++) {
                acked.add(wal.append(text("before-" + i)).get(5, TimeUnit.SECONDS));
            }
            broken.set(true);
            ExecutionException first = assertThrows(ExecutionException.class,
                    () -> wal.append(text("at the fault")).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, first.getCause());
            assertInstanceOf(IOException.class, first.getCause().getCause(), "the device's error is the cause");

            broken.set(false); // the device "recovers": the WAL must not trust it again
            ExecutionException later = assertThrows(ExecutionException.class,
                    () -> wal.append(text("after the fault")).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, later.getCause());
            ExecutionException trim = assertThrows(ExecutionException.class,
                    () -> wal.trim(acked.get(10)).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, trim.getCause(), "no header write after the fault either");

            Failure told = listener.first.get(5, TimeUnit.SECONDS);
            assertEquals(config.path(), told.path());
            assertInstanceOf(IOException.class, told.cause());
            assertTrue(told.thread().startsWith("aloft-wal-io-"), told.thread());
            assertEquals(1, listener.calls.size(), "told once: " + listener.calls);
        }
        try (BlockDeviceWal wal = BlockDeviceWal.open(config)) {
            List<WalRecord> recovered = recoverAll(wal);
            assertEquals(acked.size(), recovered.size(), "exactly the acknowledged records are recovered");
            for (int i = 0; i < acked.size(); i++) {
                assertEquals(acked.get(i), recovered.get(i).offset());
                assertEquals("before-" + i, text(recovered.get(i).body()));
            }
        }
    }

    @Test
    void trim_headerWriteFails_failsTheLogAndTellsListener() throws Exception {
        AtomicBoolean broken = new AtomicBoolean();
        Recorder listener = new Recorder();
        try (BlockDeviceWal wal = BlockDeviceWal.builder(smallConfig(dir).build())
                .channelOpener(FaultyFileChannel.opener(broken::get)).failureListener(listener).open()) {
            wal.append(text("one")).get(5, TimeUnit.SECONDS);
            broken.set(true);
            CompletableFuture<Void> trim = wal.trim(wal.nextOffset());
            ExecutionException e = assertThrows(ExecutionException.class, () -> trim.get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, e.getCause());
            Failure told = listener.first.get(5, TimeUnit.SECONDS);
            assertTrue(told.cause().getMessage().contains("header"), told.cause().toString());
            assertInstanceOf(IOException.class, told.cause().getCause());
            assertEquals("aloft-wal-header-1", told.thread());

            broken.set(false);
            ExecutionException later = assertThrows(ExecutionException.class,
                    () -> wal.append(text("two")).get(5, TimeUnit.SECONDS));
            assertInstanceOf(WalClosedException.class, later.getCause(), "no write after a failed header write");
            assertEquals(1, listener.calls.size(), "told once: " + listener.calls);
        }
    }

    @Test
    void failureListenerThrows_reachesTheThreadsUncaughtExceptionHandler() throws Exception {
        AtomicBoolean broken = new AtomicBoolean();
        AtomicReference<Failure> uncaught = new AtomicReference<>();
        CompletableFuture<Void> reported = new CompletableFuture<>();
        try (BlockDeviceWal wal = BlockDeviceWal.builder(smallConfig(dir).build())
                .channelOpener(FaultyFileChannel.opener(broken::get))
                .failureListener((path, cause) -> {
                    throw new IllegalStateException("listener bug");
                })
                .uncaughtExceptionHandler((thread, error) -> {
                    uncaught.set(new Failure(null, error, thread.getName()));
                    reported.complete(null);
                })
                .open()) {
            broken.set(true);
            assertThrows(ExecutionException.class, () -> wal.append(text("x")).get(5, TimeUnit.SECONDS));
            reported.get(5, TimeUnit.SECONDS);
            assertEquals("listener bug", uncaught.get().cause().getMessage());
            assertTrue(uncaught.get().thread().startsWith("aloft-wal-io-"), uncaught.get().thread());
        }
    }

    @Test
    void builder_optionSetTwiceOrNull_failsAtOnce() {
        BlockDeviceWal.Builder b = BlockDeviceWal.builder(smallConfig(dir).build())
                .failureListener((path, cause) -> { });
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> b.failureListener((path, cause) -> { }));
        assertTrue(twice.getMessage().startsWith("failureListener"), twice.getMessage());
        NullPointerException none = assertThrows(NullPointerException.class, () -> b.uncaughtExceptionHandler(null));
        assertTrue(none.getMessage().contains("uncaughtExceptionHandler"), none.getMessage());
    }
}
