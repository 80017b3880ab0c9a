package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.codec.ControllerSchemas;
import io.aloft.controller.command.Reply;
import io.aloft.controller.server.ControllerServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data of the pre-release reflective format is refused with a clear message, never misdecoded: a
 * data dir without the format marker does not start, and an entry in the old format (a client of
 * the old build) is rejected on every voter without changing the state.
 */
class PreReleaseDataTest {
    @TempDir
    Path dir;

    @Test
    void aDataDirWithRaftStorageButNoFormatMarkerDoesNotStart() throws IOException {
        String voters = "1@127.0.0.1:" + TestQuorum.freePort();
        Path dataDir = dir.resolve("voter-1");
        Files.createDirectories(dataDir.resolve(RaftSetup.groupId().getUuid().toString()).resolve("current"));
        ControllerConfig config = ControllerConfig.builder().nodeId(1).voters(voters).dataDir(dataDir).build();
        IOException e = assertThrows(IOException.class, () -> ControllerServer.start(config).close());
        assertTrue(e.getMessage().contains("pre-release format") && e.getMessage().contains("empty metadata.log.dir"),
                e.getMessage());
    }

    @Test
    void anEntryInThePreReleaseFormatIsRejected_andChangesNothing() throws Exception {
        try (TestQuorum q = new TestQuorum(dir, 1);
                RaftClient raw = RaftClient.newBuilder().setProperties(RaftSetup.baseProperties())
                        .setRaftGroup(RaftSetup.group(q.config(1).voters())).build()) {
            q.awaitLeader();
            q.awaitApplied(q.maxApplied());
            String before = q.server(1).state().dump();
            // The old codec's RECORD tag (10), type 0 (Request), then anything.
            RaftClientReply reply = raw.async().send(Message.valueOf(ByteString.copyFrom(new byte[] {10, 0, 8, 1, 2})))
                    .get(60, TimeUnit.SECONDS);
            Reply decoded = ControllerSchemas.CODEC.decode(reply.getMessage().getContent().toByteArray(), Reply.class);
            assertEquals("INVALID_REQUEST", decoded.failure().code());
            assertTrue(decoded.failure().message().contains("pre-release format"), decoded.failure().message());
            q.awaitApplied(reply.getLogIndex());
            assertEquals(before, q.server(1).state().dump());
        }
    }
}
