package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ClientAccess;
import io.aloft.controller.client.ControllerClient;
import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.controller.command.Request;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamRange;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One request (same client id and sequence, same bytes) sent again, as a client retry does after
 * losing a reply, including through another leader and twice at once: it is applied once, and
 * every copy gets the first reply.
 */
class IdempotentRetryTest {
    @TempDir
    Path dir;

    @Test
    void sameRequestAppliedOnce_acrossLeaders() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 3); ControllerClient a = q.newClient();
                ControllerClient b = q.newClient()) {
            q.awaitLeader();
            ControllerStreamMetadata metadata = new ControllerStreamMetadata(a);
            long stream = metadata.createStream(new CreateStreamRequest(1)).get(60, TimeUnit.SECONDS);
            metadata.openStream(new OpenStreamRequest(stream, 1, 1)).get(60, TimeUnit.SECONDS);

            UUID clientId = UUID.randomUUID();
            long now = System.currentTimeMillis();
            Request prepare = new Request(clientId, 1, now, new PrepareObjectsRequest(1, 3, 600_000, now));
            long firstId = (Long) send(a, prepare);

            int firstLeader = q.awaitLeader();
            q.stop(firstLeader);
            assertNotEquals(firstLeader, q.awaitLeader());
            assertEquals(firstId, (Long) send(b, prepare), "the retry through the new leader gets the first reply");

            CommitStreamSetObjectRequest commitCommand = new CommitStreamSetObjectRequest(1, firstId, 100,
                    List.of(new StreamRange(stream, 1, 0, 10)), List.of(), List.of(), now);
            Request commit = new Request(clientId, 2, now, commitCommand);
            // Twice at once, through two clients: both copies reach the log.
            CompletableFuture<Object> one = ClientAccess.submitRequest(a, commit);
            CompletableFuture<Object> two = ClientAccess.submitRequest(b, commit);
            assertNull(one.get(60, TimeUnit.SECONDS));
            assertNull(two.get(60, TimeUnit.SECONDS), "the second copy is answered as the first, not OBJECT_STATE");

            // And once more, after its reply was delivered twice.
            assertNull(send(a, commit));

            // A new request with the same command is a different request: it is applied, and rejected.
            ExecutionException again = assertThrows(ExecutionException.class,
                    () -> ClientAccess.submitRequest(a, new Request(clientId, 3, now, commitCommand))
                            .get(60, TimeUnit.SECONDS));
            StreamMetadataException rejected = assertInstanceOf(StreamMetadataException.class, again.getCause());
            assertEquals(StreamMetadataException.Code.OBJECT_STATE, rejected.code());

            // Applied once: three ids allocated in all, the first committed with one range.
            List<ObjectRef> objects = metadata.getObjects(stream, 0, -1, 100).get(30, TimeUnit.SECONDS);
            assertEquals(List.of(new ObjectRef(firstId, S3Object.Type.STREAM_SET, 100,
                    new StreamRange(stream, 1, 0, 10))), objects);
            assertEquals(10, metadata.describeStream(stream).get(30, TimeUnit.SECONDS).endOffset());
            q.start(firstLeader);
            q.awaitApplied(q.maxApplied());
            String dump = q.server(1).state().dump();
            assertTrue(dump.contains("nextObjectId=" + (firstId + 3) + " "), "one prepare of three ids: " + dump);
            assertEquals(3, dump.lines().filter(l -> l.startsWith("object ")).count(), dump);
            for (int id = 2; id <= 3; id++) {
                assertEquals(dump, q.server(id).state().dump(), "voter " + id);
            }
        }
    }

    private static Object send(ControllerClient client, Request request) throws Exception {
        return ClientAccess.submitRequest(client, request).get(60, TimeUnit.SECONDS);
    }
}
