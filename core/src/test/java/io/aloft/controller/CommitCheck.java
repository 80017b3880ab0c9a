package io.aloft.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aloft.controller.client.ControllerStreamMetadata;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.StreamRange;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Checks that a controller holds every acknowledged commit of a {@link CommitWriter} exactly once,
 * and nothing else: through the client (what brokers read) and through a voter's state dump (what
 * the replicas hold).
 */
final class CommitCheck {
    private CommitCheck() {
    }

    static void verify(ControllerStreamMetadata metadata, String dump, List<CommitWriter.Ack> acks,
            Map<Long, Long> expectedEnds) throws Exception {
        // Through the client: each stream's end is the sum of its acknowledged ranges, and its live
        // objects are exactly the acknowledged ones, once each, chained from offset 0.
        Map<Long, Map<Long, StreamRange>> ackedByStream = new HashMap<>();
        for (CommitWriter.Ack a : acks) {
            for (StreamRange r : a.ranges()) {
                ackedByStream.computeIfAbsent(r.streamId(), k -> new HashMap<>()).put(a.objectId(), r);
            }
        }
        for (Map.Entry<Long, Long> e : expectedEnds.entrySet()) {
            long stream = e.getKey();
            assertEquals(e.getValue(), metadata.describeStream(stream).get(30, TimeUnit.SECONDS).endOffset(),
                    "end offset of stream " + stream);
            List<ObjectRef> refs = metadata.getObjects(stream, 0, -1, 1_000_000).get(30, TimeUnit.SECONDS);
            Map<Long, StreamRange> acked = ackedByStream.getOrDefault(stream, Map.of());
            assertEquals(acked.size(), refs.size(), "objects of stream " + stream);
            long next = 0;
            for (ObjectRef ref : refs) {
                assertEquals(acked.get(ref.objectId()), ref.range(), "object " + ref.objectId() + " of stream "
                        + stream + " holds the acknowledged range");
                assertEquals(next, ref.range().startOffset(), "stream " + stream + " is contiguous");
                next = ref.range().endOffset();
            }
        }
        // Through the state: the objects are exactly the acknowledged ones, committed with their
        // ranges; no prepare or commit was applied twice (a second prepare would leave an extra
        // object, a second commit an extra range or a moved end).
        Map<Long, String> objects = new TreeMap<>();
        for (String line : dump.split("\n")) {
            if (line.startsWith("object ")) {
                String[] f = line.split(" ");
                objects.put(Long.parseLong(f[1]), line);
            }
        }
        assertEquals(acks.size(), objects.size(), "objects in the state: one per acknowledged commit");
        for (CommitWriter.Ack a : acks) {
            String line = objects.get(a.objectId());
            assertNotNull(line, "acknowledged object " + a.objectId() + " is in the state");
            assertTrue(line.startsWith("object " + a.objectId() + " STREAM_SET COMMITTED "), line);
            // Ranges are stored in the order the commit listed them.
            assertTrue(line.endsWith(" ranges=" + format(a.ranges())),
                    "object " + a.objectId() + " has its acknowledged ranges: " + line);
        }
    }

    private static String format(List<StreamRange> ranges) {
        StringBuilder sb = new StringBuilder();
        for (StreamRange r : ranges) {
            sb.append(r.streamId()).append('@').append(r.epoch()).append('[').append(r.startOffset()).append(',')
                    .append(r.endOffset()).append(')');
        }
        return sb.toString();
    }
}
