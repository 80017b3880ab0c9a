package io.aloft.broker.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Cases of the share coordinator's APIs (KIP-932, brokers' calls to each other: Initialize, Read,
 * Write, Delete, ReadShareGroupStateSummary) and of FindCoordinator's share keys. Each case uses a
 * share group of its own on partition 0 of {@link Target#DATA}, waits until the coordinator of its
 * key serves (both brokers create {@code __share_group_state} on the first lookup and load it), then
 * walks the rules: what a state never initialized answers, the fencing of older epochs, and the state
 * read back after writes (noted, so the merge of batches is compared too).
 *
 * <p>Stateless.
 */
final class ShareStateCases {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private ShareStateCases() {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(Shape.of(ApiKeys.FIND_COORDINATOR, "malformed share keys", 6, 6, (t, v) ->
                new FindCoordinatorRequestData().setKeyType((byte) 2).setCoordinatorKeys(List.of("no-colons",
                        "g:not-a-topic-id:0", "g:AAAAAAAAAAAAAAAAAAAAAQ:x", ":AAAAAAAAAAAAAAAAAAAAAQ:0",
                        "g:AAAAAAAAAAAAAAAAAAAAAQ:0:1", ""))));
        shapes.add(Shape.script(ApiKeys.INITIALIZE_SHARE_GROUP_STATE, "initialize, fencing, unknown partitions", 0, 0,
                (s, v) -> {
                    String group = group("init", v);
                    Uuid topic = s.target.topicId(Target.DATA);
                    awaitCoordinator(s.target, group, topic);
                    s.ask("first", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, v, init(group, topic, 0, 2, 5));
                    s.ask("same epoch", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, v, init(group, topic, 0, 2, 6));
                    s.ask("older epoch", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, v, init(group, topic, 0, 1, 7));
                    s.ask("unknown topic", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, v,
                            init(group, Uuid.randomUuid(), 0, 0, 0));
                    s.ask("unknown partition", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, v, init(group, topic, 99, 0, 0));
                    s.ask("empty group", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, v, init("", topic, 0, 0, 0));
                    noteRead(s, "after", group, topic, -1);
                }));
        shapes.add(Shape.script(ApiKeys.READ_SHARE_GROUP_STATE, "uninitialized, leader epochs", 0, 0, (s, v) -> {
            String group = group("read", v);
            Uuid topic = s.target.topicId(Target.DATA);
            awaitCoordinator(s.target, group, topic);
            s.ask("uninitialized", ApiKeys.READ_SHARE_GROUP_STATE, v, read(group, topic, 0, 0));
            s.ask("init", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, (short) 0, init(group, topic, 0, 1, 5));
            noteRead(s, "epoch 3", group, topic, 3);
            s.ask("epoch 2", ApiKeys.READ_SHARE_GROUP_STATE, v, read(group, topic, 0, 2));
            noteRead(s, "epoch -1", group, topic, -1);
            s.ask("negative partition", ApiKeys.READ_SHARE_GROUP_STATE, v, read(group, topic, -1, 0));
            s.ask("empty group", ApiKeys.READ_SHARE_GROUP_STATE, v, read("", topic, 0, 0));
        }));
        shapes.add(Shape.script(ApiKeys.WRITE_SHARE_GROUP_STATE, "merge and fencing", 0, 1, (s, v) -> {
            String group = group("write", v);
            Uuid topic = s.target.topicId(Target.DATA);
            awaitCoordinator(s.target, group, topic);
            s.ask("uninitialized", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 0, 0, 0, 0, List.of()));
            s.ask("init", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, (short) 0, init(group, topic, 0, 1, 5));
            s.ask("first", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 1, 3, -1, 4,
                    List.of(batch(5, 20, 2, 1), batch(21, 30, 0, 1), batch(31, 40, 4, 3))));
            s.ask("overlaps", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 1, 3, -1, 4,
                    List.of(batch(10, 12, 4, 3), batch(14, 14, 0, 1), batch(22, 22, 2, 0), batch(24, 24, 0, 2),
                            batch(35, 35, 2, 3), batch(13, 13, 4, 3), batch(50, 55, 0, 0))));
            noteRead(s, "merged", group, topic, 3);
            s.ask("start offset", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 1, 4, 11, 2, List.of()));
            noteRead(s, "moved", group, topic, 4);
            s.ask("older state epoch", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 0, 4, -1, 0,
                    List.of()));
            s.ask("newer state epoch", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 2, 4, -1, 0,
                    List.of()));
            s.ask("older leader epoch", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 1, 3, -1, 0,
                    List.of()));
            s.ask("no leader epoch", ApiKeys.WRITE_SHARE_GROUP_STATE, v, write(group, topic, 1, -1, -1, 0,
                    List.of()));
            s.ask("negative partition", ApiKeys.WRITE_SHARE_GROUP_STATE, v, new WriteShareGroupStateRequestData()
                    .setGroupId(group).setTopics(List.of(new WriteShareGroupStateRequestData.WriteStateData()
                            .setTopicId(topic).setPartitions(List.of(new WriteShareGroupStateRequestData
                                    .PartitionData().setPartition(-1))))));
            noteSummary(s, "after", group, topic, (short) 1);
        }));
        shapes.add(Shape.script(ApiKeys.DELETE_SHARE_GROUP_STATE, "delete, again, read", 0, 0, (s, v) -> {
            String group = group("delete", v);
            Uuid topic = s.target.topicId(Target.DATA);
            awaitCoordinator(s.target, group, topic);
            s.ask("nothing", ApiKeys.DELETE_SHARE_GROUP_STATE, v, delete(group, topic, 0));
            s.ask("init", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, (short) 0, init(group, topic, 0, 1, 5));
            s.ask("delete", ApiKeys.DELETE_SHARE_GROUP_STATE, v, delete(group, topic, 0));
            s.ask("again", ApiKeys.DELETE_SHARE_GROUP_STATE, v, delete(group, topic, 0));
            s.ask("read", ApiKeys.READ_SHARE_GROUP_STATE, (short) 0, read(group, topic, 0, 0));
            s.ask("write", ApiKeys.WRITE_SHARE_GROUP_STATE, (short) 0, write(group, topic, 1, 0, -1, 0, List.of()));
            noteSummary(s, "summary", group, topic, (short) 1);
            s.ask("empty group", ApiKeys.DELETE_SHARE_GROUP_STATE, v, delete("", topic, 0));
        }));
        shapes.add(Shape.script(ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, "uninitialized, initialized, written", 0, 1,
                (s, v) -> {
                    String group = group("summary", v);
                    Uuid topic = s.target.topicId(Target.DATA);
                    awaitCoordinator(s.target, group, topic);
                    noteSummary(s, "uninitialized", group, topic, v);
                    s.ask("init", ApiKeys.INITIALIZE_SHARE_GROUP_STATE, (short) 0, init(group, topic, 0, 1, 5));
                    noteSummary(s, "initialized", group, topic, v);
                    s.ask("write", ApiKeys.WRITE_SHARE_GROUP_STATE, (short) 1, write(group, topic, 1, 6, 8, 3,
                            List.of(batch(8, 9, 2, 1))));
                    noteSummary(s, "written", group, topic, v);
                    s.ask("empty group", ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, v, summary("", topic, 0));
                }));
        return shapes;
    }

    private static String group(String what, short version) {
        return "conf-share-" + what + "-v" + version + "-" + System.nanoTime();
    }

    /**
     * Polls until the share coordinator of (group, topic, 0) is found and serves it (a summary is
     * answered without a retriable error): both brokers create and load {@code __share_group_state}
     * on first use. On a connection of its own, so the case's transcript has none of it.
     */
    static void awaitCoordinator(Target target, String group, Uuid topic) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (RawConnection c = RawConnection.open(target.bootstrap)) {
            while (true) {
                c.send(ApiKeys.FIND_COORDINATOR, (short) 6, new FindCoordinatorRequestData().setKeyType((byte) 2)
                        .setCoordinatorKeys(List.of(group + ":" + topic + ":0")));
                ReadShareGroupStateSummaryResponseData r = (ReadShareGroupStateSummaryResponseData) c.send(
                        ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, (short) 0, summary(group, topic, 0)).body();
                Errors e = Errors.forCode(r.results().get(0).partitions().get(0).errorCode());
                if (e == Errors.NONE) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(target.name + ": no share coordinator within " + READY_TIMEOUT + ": " + r);
                }
                Target.pause();
            }
        }
    }

    /** Polls until FindCoordinator finds the coordinator of a share key (the topic made on first use). */
    static void awaitShareKey(Target target, String key) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (RawConnection c = RawConnection.open(target.bootstrap)) {
            while (true) {
                org.apache.kafka.common.message.FindCoordinatorResponseData r =
                        (org.apache.kafka.common.message.FindCoordinatorResponseData) c.send(ApiKeys.FIND_COORDINATOR,
                                (short) 6, new FindCoordinatorRequestData().setKeyType((byte) 2)
                                        .setCoordinatorKeys(List.of(key))).body();
                if (r.coordinators().get(0).errorCode() == Errors.NONE.code()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(target.name + ": no share coordinator within " + READY_TIMEOUT + ": " + r);
                }
                Target.pause();
            }
        }
    }

    private static void noteRead(Session s, String step, String group, Uuid topic, int leaderEpoch) throws Exception {
        ReadShareGroupStateResponseData r = (ReadShareGroupStateResponseData) s.ask(step, ApiKeys.READ_SHARE_GROUP_STATE,
                (short) 0, read(group, topic, 0, leaderEpoch));
        ReadShareGroupStateResponseData.PartitionResult p = r.results().get(0).partitions().get(0);
        StringBuilder batches = new StringBuilder();
        p.stateBatches().forEach(b -> batches.append(b.firstOffset()).append('-').append(b.lastOffset()).append('/')
                .append(b.deliveryState()).append('/').append(b.deliveryCount()).append(' '));
        s.note(step, "state", "stateEpoch=" + p.stateEpoch() + " startOffset=" + p.startOffset() + " batches="
                + batches.toString().strip());
    }

    private static void noteSummary(Session s, String step, String group, Uuid topic, short version) throws Exception {
        ReadShareGroupStateSummaryResponseData r = (ReadShareGroupStateSummaryResponseData) s.ask(step,
                ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY, version, summary(group, topic, 0));
        ReadShareGroupStateSummaryResponseData.PartitionResult p = r.results().get(0).partitions().get(0);
        s.note(step, "summary", "stateEpoch=" + p.stateEpoch() + " leaderEpoch=" + p.leaderEpoch() + " startOffset="
                + p.startOffset() + " deliveryCompleteCount=" + p.deliveryCompleteCount());
    }

    static ApiMessage init(String group, Uuid topic, int partition, int stateEpoch, long startOffset) {
        return new InitializeShareGroupStateRequestData().setGroupId(group).setTopics(List.of(
                new InitializeShareGroupStateRequestData.InitializeStateData().setTopicId(topic).setPartitions(List.of(
                        new InitializeShareGroupStateRequestData.PartitionData().setPartition(partition)
                                .setStateEpoch(stateEpoch).setStartOffset(startOffset)))));
    }

    static ApiMessage read(String group, Uuid topic, int partition, int leaderEpoch) {
        return new ReadShareGroupStateRequestData().setGroupId(group).setTopics(List.of(
                new ReadShareGroupStateRequestData.ReadStateData().setTopicId(topic).setPartitions(List.of(
                        new ReadShareGroupStateRequestData.PartitionData().setPartition(partition)
                                .setLeaderEpoch(leaderEpoch)))));
    }

    static ReadShareGroupStateSummaryRequestData summary(String group, Uuid topic, int partition) {
        return new ReadShareGroupStateSummaryRequestData().setGroupId(group).setTopics(List.of(
                new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData().setTopicId(topic).setPartitions(
                        List.of(new ReadShareGroupStateSummaryRequestData.PartitionData().setPartition(partition)))));
    }

    static ApiMessage delete(String group, Uuid topic, int partition) {
        return new DeleteShareGroupStateRequestData().setGroupId(group).setTopics(List.of(
                new DeleteShareGroupStateRequestData.DeleteStateData().setTopicId(topic).setPartitions(List.of(
                        new DeleteShareGroupStateRequestData.PartitionData().setPartition(partition)))));
    }

    static ApiMessage write(String group, Uuid topic, int stateEpoch, int leaderEpoch, long startOffset,
            int deliveryCompleteCount, List<WriteShareGroupStateRequestData.StateBatch> batches) {
        return new WriteShareGroupStateRequestData().setGroupId(group).setTopics(List.of(
                new WriteShareGroupStateRequestData.WriteStateData().setTopicId(topic).setPartitions(List.of(
                        new WriteShareGroupStateRequestData.PartitionData().setPartition(0).setStateEpoch(stateEpoch)
                                .setLeaderEpoch(leaderEpoch).setStartOffset(startOffset)
                                .setDeliveryCompleteCount(deliveryCompleteCount).setStateBatches(batches)))));
    }

    static WriteShareGroupStateRequestData.StateBatch batch(long first, long last, int state, int count) {
        return new WriteShareGroupStateRequestData.StateBatch().setFirstOffset(first).setLastOffset(last)
                .setDeliveryState((byte) state).setDeliveryCount((short) count);
    }
}
