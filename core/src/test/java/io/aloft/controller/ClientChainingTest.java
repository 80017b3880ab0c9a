package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.query.Queries;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Callers chain the next request onto the last one's future (thenCompose), several chains at
 * once. Regression: the client completed futures on Ratis's reply thread while Ratis held that
 * connection's lock, so a continuation submitting through another connection, whose reply thread
 * was doing the same the other way round, deadlocked both chains for good.
 */
class ClientChainingTest {
    private static final int CHAINS = 8;
    private static final int PER_CHAIN = 150;

    @TempDir
    Path dir;

    @Test
    void requestsChainedInCallbacksAllComplete() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1); ControllerClient client = q.newClient()) {
            q.awaitLeader();
            List<CompletableFuture<Object>> chains = new ArrayList<>();
            for (int c = 0; c < CHAINS; c++) {
                CompletableFuture<Object> chain = CompletableFuture.completedFuture(null);
                for (int i = 0; i < PER_CHAIN; i++) {
                    PutKv put = new PutKv("chain-" + c, ByteBuffer.allocate(4).putInt(i).array());
                    chain = chain.thenCompose(v -> client.submit(put));
                }
                chains.add(chain);
            }
            // Generous: a few seconds of work; a deadlock never finishes.
            CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            for (int c = 0; c < CHAINS; c++) {
                assertArrayEquals(ByteBuffer.allocate(4).putInt(PER_CHAIN - 1).array(),
                        client.query(new Queries.GetKv("chain-" + c), byte[].class).get(30, TimeUnit.SECONDS),
                        "chain " + c + " ran to its last request");
            }
        }
    }
}
