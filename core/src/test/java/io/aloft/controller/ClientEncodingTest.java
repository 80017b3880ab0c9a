package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.query.Queries;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command the client cannot encode (no schema) fails on its own: the commands batched with it
 * are still sent, and the client keeps working (its in-flight slot is released).
 */
class ClientEncodingTest {
    /** A record the controller has no schema for. */
    public record NotACommand(int x) {
    }

    @TempDir
    Path dir;

    @Test
    void aCommandWithoutSchemaFailsAlone_theOthersOfItsBatchApply() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1, b -> b.clientConnections(1));
                ControllerClient client = q.newClient()) {
            q.awaitLeader();
            for (int round = 0; round < 20; round++) {
                // With one connection, the commands submitted while the first is in flight go out as one batch.
                List<CompletableFuture<Object>> good = new ArrayList<>();
                good.add(client.submit(new PutKv("a" + round, new byte[] {1})));
                CompletableFuture<Object> bad = client.submit(new NotACommand(round));
                good.add(client.submit(new PutKv("b" + round, new byte[] {2})));
                ExecutionException e = assertThrows(ExecutionException.class, () -> bad.get(60, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof ControllerException ce
                        && ce.code() == ControllerException.Code.INVALID_REQUEST
                        && ce.getMessage().contains("NotACommand"), e.getCause().toString());
                for (CompletableFuture<Object> f : good) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertArrayEquals(new byte[] {2}, client.query(new Queries.GetKv("b" + round), byte[].class)
                        .get(60, TimeUnit.SECONDS));
            }
            assertEquals(null, client.query(new Queries.GetKv("never"), byte[].class).get(60, TimeUnit.SECONDS));
        }
    }
}
