package io.aloft.broker.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The transaction APIs as a transaction-version-1 producer and the admin tools use them (issue 16):
 * InitProducerId with a transactional id (first time, epoch bump, timeouts out of range, KIP-360's
 * resume form with a matching or another producer), AddPartitionsToTxn and AddOffsetsToTxn (unknown
 * topics, ids and producers, stale and future epochs), EndTxn (nothing open, wrong producer or
 * epoch, commit and its retry), ListTransactions (state, producer id, duration and id pattern
 * filters) and DescribeTransactions. Each API under test is sent at the version under test, the
 * steps around it at one fixed version both brokers serve.
 *
 * <p>Answers depend on producer ids, which each cluster gives its own: cases note epochs and ids
 * relative to what the same session got before, never their values. Transactional ids carry the
 * case and version, so no two runs share one.
 *
 * <p>Stateless.
 */
final class TransactionCases {
    private static final short INIT = 4;
    private static final short ADD = 3;
    private static final short END = 3;
    private static final short DESCRIBE = 0;
    /** Kafka's transaction.max.timeout.ms default (both brokers run with it). */
    static final int MAX_TIMEOUT_MS = 900_000;
    private static final int TIMEOUT_MS = 60_000;
    /**
     * A transaction timeout the coordinators' abort check (every
     * {@link TransactionConformanceTest#ABORT_CHECK_INTERVAL_MS}) acts on within a few seconds.
     */
    private static final int SHORT_TIMEOUT_MS = 300;
    /** How long a completing transaction may take to reach Complete* (its markers are written). */
    private static final long COMPLETE_TIMEOUT_NS = 15_000_000_000L;

    private TransactionCases() {
    }

    /** A producer as InitProducerId answered it. */
    record Producer(String transactionalId, long id, short epoch) {
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        initProducerId(shapes);
        addPartitions(shapes);
        endTxn(shapes);
        listAndDescribe(shapes);
        return shapes;
    }

    // ---- InitProducerId ------------------------------------------------------------------

    private static void initProducerId(List<Shape> shapes) {
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "transactional, then again: the epoch is bumped", 0, 5,
                (s, v) -> {
                    Producer first = init(s, "first", "conf-tx-init-v" + v, v);
                    Producer second = init(s, "again", first.transactionalId(), v);
                    s.note("again", "same producer id", first.id() == second.id());
                    s.note("again", "epoch delta", second.epoch() - first.epoch());
                }));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "transaction timeout above transaction.max.timeout.ms", 0,
                5, (s, v) -> s.ask("", ApiKeys.INIT_PRODUCER_ID, v, new InitProducerIdRequestData()
                        .setTransactionalId("conf-tx-maxtimeout-v" + v).setTransactionTimeoutMs(MAX_TIMEOUT_MS + 1))));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "transaction timeout 0", 0, 5, (s, v) -> s.ask("",
                ApiKeys.INIT_PRODUCER_ID, v, new InitProducerIdRequestData()
                        .setTransactionalId("conf-tx-zerotimeout-v" + v).setTransactionTimeoutMs(0))));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "resume form: current, retried, other producers", 3, 5,
                TransactionCases::resume));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "resume form on a new transactional id", 3, 5,
                (s, v) -> {
                    InitProducerIdResponseData r = (InitProducerIdResponseData) s.ask("", ApiKeys.INIT_PRODUCER_ID,
                            v, new InitProducerIdRequestData().setTransactionalId("conf-tx-resume-new-v" + v)
                                    .setTransactionTimeoutMs(TIMEOUT_MS).setProducerId(4242).setProducerEpoch((short) 3));
                    s.note("", "producer id kept", r.producerId() == 4242);
                    s.note("", "epoch", r.producerEpoch());
                }));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "resume form after a timeout's abort, then on an open one", 3, 5,
                (s, v) -> {
                    // The abort fenced the producer's epoch: resuming with it is refused (transaction version 1).
                    Producer p = timedOut(s, "conf-tx-resume-timeout-v" + v);
                    resumeAs(s, "resumed", p, p.id(), p.epoch(), v);
                    Producer current = init(s, "init again", p.transactionalId(), v);
                    add(s, "add", current, ADD, Target.DATA, 1);
                    resumeAs(s, "while open", current, current.id(), current.epoch(), v);
                    awaitComplete(s, p.transactionalId());
                    describe(s, "after", current);
                }));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "producer id without epoch", 3, 5, (s, v) -> s.ask("",
                ApiKeys.INIT_PRODUCER_ID, v, new InitProducerIdRequestData().setTransactionalId("conf-tx-half-v" + v)
                        .setTransactionTimeoutMs(TIMEOUT_MS).setProducerId(4242).setProducerEpoch((short) -1))));
        shapes.add(Shape.of(ApiKeys.INIT_PRODUCER_ID, "empty transactional id", (t, v) -> initRequest("")));
        shapes.add(Shape.script(ApiKeys.INIT_PRODUCER_ID, "on an open transaction", 0, 5, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-init-open-v" + v, INIT);
            add(s, "add", p, ADD, Target.DATA, 0);
            // Kafka aborts the open transaction (fencing its producer) and answers CONCURRENT_TRANSACTIONS
            // until the abort completes; the client retries.
            s.ask("while open", ApiKeys.INIT_PRODUCER_ID, v, initRequest(p.transactionalId()));
            awaitComplete(s, p.transactionalId());
            Producer after = init(s, "after the abort", p.transactionalId(), v);
            s.note("after the abort", "epoch delta", after.epoch() - p.epoch());
            describe(s, "described", p);
        }));
    }

    /** KIP-360: a producer naming its id and epoch gets the next epoch; a retry of that, the same. */
    private static void resume(Session s, short v) throws Exception {
        Producer p = init(s, "init", "conf-tx-resume-v" + v, INIT);
        InitProducerIdResponseData bumped = resumeAs(s, "current", p, p.id(), p.epoch(), v);
        s.note("current", "epoch delta", bumped.producerEpoch() - p.epoch());
        InitProducerIdResponseData retried = resumeAs(s, "retried", p, p.id(), p.epoch(), v);
        s.note("retried", "epoch delta", retried.producerEpoch() - p.epoch());
        resumeAs(s, "another producer id", p, p.id() + 1000, p.epoch(), v);
        resumeAs(s, "a future epoch", p, p.id(), (short) (p.epoch() + 5), v);
        InitProducerIdResponseData again = resumeAs(s, "current again", p, p.id(), retried.producerEpoch(), v);
        s.note("current again", "epoch delta", again.producerEpoch() - p.epoch());
        resumeAs(s, "two epochs back", p, p.id(), p.epoch(), v);
    }

    private static InitProducerIdResponseData resumeAs(Session s, String step, Producer p, long id, short epoch,
            short v) throws Exception {
        InitProducerIdResponseData r = (InitProducerIdResponseData) s.ask(step, ApiKeys.INIT_PRODUCER_ID, v,
                initRequest(p.transactionalId()).setProducerId(id).setProducerEpoch(epoch));
        s.note(step, "same producer id", r.producerId() == p.id());
        return r;
    }

    // ---- AddPartitionsToTxn / AddOffsetsToTxn / EndTxn -----------------------------------

    private static void addPartitions(List<Shape> shapes) {
        shapes.add(Shape.script(ApiKeys.ADD_PARTITIONS_TO_TXN, "two partitions, then again", 0, 3, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-add-v" + v, INIT);
            add(s, "first", p, v, Target.DATA, 0, 1);
            add(s, "again", p, v, Target.DATA, 0, 1);
            add(s, "one more", p, v, Target.DATA, 2);
            describe(s, "described", p);
        }));
        shapes.add(Shape.script(ApiKeys.ADD_PARTITIONS_TO_TXN, "unknown topic and partition", 0, 3, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-add-unknown-v" + v, INIT);
            s.ask("unknown topic", ApiKeys.ADD_PARTITIONS_TO_TXN, v, addRequest(p, Target.DATA, 0, 1)
                    .setV3AndBelowTopics(topics(new String[] {Target.DATA, "conf-missing"}, new int[][] {{0, 1}, {0}})));
            add(s, "unknown partition", p, v, Target.DATA, 0, 9);
            describe(s, "described", p);
        }));
        shapes.add(Shape.script(ApiKeys.ADD_PARTITIONS_TO_TXN, "wrong producer or epoch", 0, 3, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-add-epoch-v" + v, INIT);
            Producer bumped = init(s, "bump", p.transactionalId(), INIT);
            add(s, "stale epoch", p, v, Target.DATA, 0);
            add(s, "future epoch", new Producer(p.transactionalId(), bumped.id(), (short) (bumped.epoch() + 1)), v,
                    Target.DATA, 0);
            add(s, "another producer id", new Producer(p.transactionalId(), bumped.id() + 1000, bumped.epoch()), v,
                    Target.DATA, 0);
            add(s, "unknown transactional id", new Producer("conf-tx-add-none-v" + v, bumped.id(), bumped.epoch()),
                    v, Target.DATA, 0);
            describe(s, "described", bumped);
        }));
        shapes.add(Shape.script(ApiKeys.ADD_PARTITIONS_TO_TXN, "no partitions, an internal topic", 0, 3,
                (s, v) -> {
                    Producer p = init(s, "init", "conf-tx-add-odd-v" + v, INIT);
                    s.ask("no topics", ApiKeys.ADD_PARTITIONS_TO_TXN, v, addRequest(p, Target.DATA)
                            .setV3AndBelowTopics(new AddPartitionsToTxnTopicCollection()));
                    add(s, "no partitions", p, v, Target.DATA);
                    describe(s, "after nothing", p);
                    add(s, "__consumer_offsets", p, v, "__consumer_offsets", 0);
                    s.ask("internal, unknown and good", ApiKeys.ADD_PARTITIONS_TO_TXN, v, addRequest(p, Target.DATA)
                            .setV3AndBelowTopics(topics(new String[] {"__transaction_state", "conf-missing",
                                Target.DATA}, new int[][] {{0}, {0}, {1}})));
                    describe(s, "described", p);
                }));
        shapes.add(Shape.script(ApiKeys.ADD_PARTITIONS_TO_TXN, "empty transactional id", 0, 3, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-add-emptyid-v" + v, INIT);
            add(s, "", new Producer("", p.id(), p.epoch()), v, Target.DATA, 0);
        }));
        shapes.add(Shape.script(ApiKeys.ADD_OFFSETS_TO_TXN, "group, wrong producer or epoch, unknown id", 0, 4,
                (s, v) -> {
                    Producer p = init(s, "init", "conf-tx-offsets-v" + v, INIT);
                    Producer bumped = init(s, "bump", p.transactionalId(), INIT);
                    addOffsets(s, "stale epoch", p, v);
                    addOffsets(s, "another producer id", new Producer(p.transactionalId(), bumped.id() + 1000,
                            bumped.epoch()), v);
                    addOffsets(s, "unknown transactional id", new Producer("conf-tx-offsets-none-v" + v, bumped.id(),
                            bumped.epoch()), v);
                    addOffsets(s, "current", bumped, v);
                    describe(s, "described", bumped);
                }));
    }

    private static void endTxn(List<Shape> shapes) {
        shapes.add(Shape.script(ApiKeys.END_TXN, "no transaction open", 0, 4, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-end-empty-v" + v, INIT);
            end(s, "commit", p, v, true);
            end(s, "abort", p, v, false);
            end(s, "unknown transactional id", new Producer("conf-tx-end-none-v" + v, p.id(), p.epoch()), v, true);
            end(s, "empty transactional id", new Producer("", p.id(), p.epoch()), v, true);
            addOffsets(s, "offsets, empty transactional id", new Producer("", p.id(), p.epoch()), ADD);
        }));
        shapes.add(Shape.script(ApiKeys.END_TXN, "wrong producer or epoch", 0, 4, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-end-epoch-v" + v, INIT);
            Producer bumped = init(s, "bump", p.transactionalId(), INIT);
            add(s, "add", bumped, ADD, Target.DATA, 0);
            end(s, "stale epoch", p, v, true);
            end(s, "future epoch", new Producer(p.transactionalId(), bumped.id(), (short) (bumped.epoch() + 1)), v,
                    true);
            end(s, "another producer id", new Producer(p.transactionalId(), bumped.id() + 1000, bumped.epoch()), v,
                    false);
            describe(s, "still open", bumped);
        }));
        shapes.add(Shape.script(ApiKeys.END_TXN, "commit, its retry, then abort", 0, 4, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-end-commit-v" + v, INIT);
            add(s, "add", p, ADD, Target.DATA, 0, 1);
            end(s, "commit", p, v, true);
            awaitComplete(s, p.transactionalId());
            end(s, "commit again", p, v, true);
            end(s, "abort after the commit", p, v, false);
            describe(s, "described", p);
        }));
        shapes.add(Shape.script(ApiKeys.END_TXN, "after the coordinator aborted it on timeout", 0, 4, (s, v) -> {
            String id = "conf-tx-end-timeout-v" + v;
            Producer p = timedOut(s, id);
            end(s, "commit", p, v, true);
            end(s, "abort", p, v, false);
            add(s, "add again", p, ADD, Target.DATA, 0);
            Producer after = init(s, "init again", id, INIT);
            s.note("init again", "epoch delta", after.epoch() - p.epoch());
        }));
        shapes.add(Shape.script(ApiKeys.END_TXN, "abort, then commit", 0, 4, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-end-abort-v" + v, INIT);
            add(s, "add", p, ADD, Target.DATA, 1);
            end(s, "abort", p, v, false);
            awaitComplete(s, p.transactionalId());
            end(s, "commit after the abort", p, v, true);
            end(s, "abort again", p, v, false);
            describe(s, "described", p);
        }));
    }

    // ---- ListTransactions / DescribeTransactions -----------------------------------------

    private static void listAndDescribe(List<Shape> shapes) {
        shapes.add(Shape.script(ApiKeys.LIST_TRANSACTIONS, "state, producer and duration filters", 0, 2,
                TransactionCases::list));
        shapes.add(Shape.script(ApiKeys.LIST_TRANSACTIONS, "transactional id pattern", 2, 2, (s, v) -> {
            String prefix = "conf-tx-pattern-v" + v;
            init(s, "init a", prefix + "-a", INIT);
            init(s, "init b", prefix + "-b", INIT);
            listed(s, "pattern", prefix, v, new ListTransactionsRequestData().setTransactionalIdPattern(prefix + "-a"));
            listed(s, "pattern .*", prefix, v, new ListTransactionsRequestData().setTransactionalIdPattern(".*"));
            listed(s, "partial pattern", prefix, v, new ListTransactionsRequestData().setTransactionalIdPattern("-a"));
            listed(s, "empty pattern", prefix, v, new ListTransactionsRequestData().setTransactionalIdPattern(""));
            listed(s, "bad pattern", prefix, v, new ListTransactionsRequestData().setTransactionalIdPattern("conf-[("));
        }));
        shapes.add(Shape.script(ApiKeys.DESCRIBE_TRANSACTIONS, "unknown, empty and known ids", 0, 0, (s, v) -> {
            Producer p = init(s, "init", "conf-tx-describe-v" + v, INIT);
            add(s, "add", p, ADD, Target.DATA, 2);
            DescribeTransactionsResponseData r = (DescribeTransactionsResponseData) s.ask("", ApiKeys
                    .DESCRIBE_TRANSACTIONS, v, new DescribeTransactionsRequestData().setTransactionalIds(
                            List.of("conf-tx-describe-none-v" + v, p.transactionalId(), "")));
            r.transactionStates().forEach(t -> s.note("", t.transactionalId() + " state",
                    t.transactionState() + " " + t.topics() + " timeout " + t.transactionTimeoutMs()));
        }));
    }

    /** Three ids of one prefix, in Empty, Ongoing and CompleteCommit, listed through each filter. */
    private static void list(Session s, short v) throws Exception {
        String prefix = "conf-tx-list-v" + v;
        Producer empty = init(s, "init empty", prefix + "-empty", INIT);
        Producer ongoing = init(s, "init ongoing", prefix + "-ongoing", INIT);
        add(s, "add ongoing", ongoing, ADD, Target.DATA, 0);
        Producer committed = init(s, "init committed", prefix + "-committed", INIT);
        add(s, "add committed", committed, ADD, Target.DATA, 1);
        end(s, "commit", committed, END, true);
        awaitComplete(s, committed.transactionalId());
        listed(s, "all", prefix, v, new ListTransactionsRequestData());
        listed(s, "Ongoing", prefix, v, new ListTransactionsRequestData().setStateFilters(List.of("Ongoing")));
        listed(s, "Empty and CompleteCommit", prefix, v, new ListTransactionsRequestData()
                .setStateFilters(List.of("Empty", "CompleteCommit")));
        listed(s, "unknown state", prefix, v, new ListTransactionsRequestData()
                .setStateFilters(List.of("Bogus")));
        listed(s, "unknown and known state", prefix, v, new ListTransactionsRequestData()
                .setStateFilters(List.of("Bogus", "Ongoing")));
        listed(s, "producer id", prefix, v, new ListTransactionsRequestData()
                .setProducerIdFilters(List.of(empty.id(), committed.id())));
        listed(s, "producer id and state", prefix, v, new ListTransactionsRequestData()
                .setProducerIdFilters(List.of(empty.id())).setStateFilters(List.of("Ongoing")));
        if (v >= 1) {
            listed(s, "duration 0", prefix, v, new ListTransactionsRequestData().setDurationFilter(0));
            listed(s, "duration 1 h", prefix, v, new ListTransactionsRequestData().setDurationFilter(3_600_000));
            listed(s, "duration -1", prefix, v, new ListTransactionsRequestData().setDurationFilter(-1));
        }
    }

    /** Lists and notes the transactions of {@code prefix} (others are other cases') and the unknown states. */
    private static void listed(Session s, String step, String prefix, short v, ListTransactionsRequestData request)
            throws Exception {
        ListTransactionsResponseData r = (ListTransactionsResponseData) s.ask(step, ApiKeys.LIST_TRANSACTIONS, v,
                request);
        if (r == null) {
            return;
        }
        s.note(step, "transactions", r.transactionStates().stream().filter(t -> t.transactionalId()
                .startsWith(prefix)).map(t -> t.transactionalId().substring(prefix.length()) + " "
                        + t.transactionState()).sorted().toList());
        s.note(step, "unknown state filters", r.unknownStateFilters());
    }

    // ---- steps ---------------------------------------------------------------------------

    /** A producer whose transaction (on a short timeout) its coordinator aborted; notes the state after. */
    private static Producer timedOut(Session s, String transactionalId) throws Exception {
        InitProducerIdResponseData r = (InitProducerIdResponseData) s.ask("init", ApiKeys.INIT_PRODUCER_ID, INIT,
                new InitProducerIdRequestData().setTransactionalId(transactionalId)
                        .setTransactionTimeoutMs(SHORT_TIMEOUT_MS));
        Producer p = new Producer(transactionalId, r.producerId(), r.producerEpoch());
        add(s, "add before the timeout", p, ADD, Target.DATA, 0);
        awaitComplete(s, transactionalId);
        describe(s, "timed out", p);
        return p;
    }

    static InitProducerIdRequestData initRequest(String transactionalId) {
        return new InitProducerIdRequestData().setTransactionalId(transactionalId).setTransactionTimeoutMs(TIMEOUT_MS);
    }

    /**
     * InitProducerId, asked again while the coordinator loads (Kafka creates and loads
     * {@code __transaction_state} on first use): only the settled answer is recorded.
     */
    static Producer init(Session s, String step, String transactionalId, short v) throws Exception {
        long deadline = System.nanoTime() + COMPLETE_TIMEOUT_NS;
        while (true) {
            InitProducerIdResponseData r = (InitProducerIdResponseData) s.ask(step, ApiKeys.INIT_PRODUCER_ID, v,
                    initRequest(transactionalId));
            Errors error = Errors.forCode(r.errorCode());
            boolean loading = error == Errors.COORDINATOR_LOAD_IN_PROGRESS || error == Errors.NOT_COORDINATOR
                    || error == Errors.COORDINATOR_NOT_AVAILABLE;
            if (!loading || System.nanoTime() > deadline) {
                return new Producer(transactionalId, r.producerId(), r.producerEpoch());
            }
            Target.pause();
        }
    }

    static void add(Session s, String step, Producer p, short v, String topic, int... partitions) throws Exception {
        s.ask(step, ApiKeys.ADD_PARTITIONS_TO_TXN, v, addRequest(p, topic, partitions));
    }

    private static AddPartitionsToTxnRequestData addRequest(Producer p, String topic, int... partitions) {
        return new AddPartitionsToTxnRequestData().setV3AndBelowTransactionalId(p.transactionalId())
                .setV3AndBelowProducerId(p.id()).setV3AndBelowProducerEpoch(p.epoch())
                .setV3AndBelowTopics(topics(new String[] {topic}, new int[][] {partitions}));
    }

    private static AddPartitionsToTxnTopicCollection topics(String[] names, int[][] partitions) {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        for (int i = 0; i < names.length; i++) {
            List<Integer> ps = new ArrayList<>();
            for (int p : partitions[i]) {
                ps.add(p);
            }
            topics.add(new AddPartitionsToTxnTopic().setName(names[i]).setPartitions(ps));
        }
        return topics;
    }

    private static void addOffsets(Session s, String step, Producer p, short v) throws Exception {
        s.ask(step, ApiKeys.ADD_OFFSETS_TO_TXN, v, new AddOffsetsToTxnRequestData()
                .setTransactionalId(p.transactionalId()).setProducerId(p.id()).setProducerEpoch(p.epoch())
                .setGroupId("conf-tx-group"));
    }

    static void end(Session s, String step, Producer p, short v, boolean commit) throws Exception {
        s.ask(step, ApiKeys.END_TXN, v, new EndTxnRequestData().setTransactionalId(p.transactionalId())
                .setProducerId(p.id()).setProducerEpoch(p.epoch()).setCommitted(commit));
    }

    /** Notes the transaction's state, partitions and epoch (relative to {@code p}'s). */
    static void describe(Session s, String step, Producer p) throws Exception {
        DescribeTransactionsResponseData r = (DescribeTransactionsResponseData) s.ask(step,
                ApiKeys.DESCRIBE_TRANSACTIONS, DESCRIBE, new DescribeTransactionsRequestData()
                        .setTransactionalIds(List.of(p.transactionalId())));
        DescribeTransactionsResponseData.TransactionState t = r.transactionStates().get(0);
        s.note(step, "state", t.transactionState());
        s.note(step, "partitions", t.topics().stream().flatMap(topic -> topic.partitions().stream()
                .map(pt -> topic.topic() + "-" + pt)).sorted().toList());
        s.note(step, "epoch delta", t.producerEpoch() - p.epoch());
        s.note(step, "same producer id", t.producerId() == p.id());
    }

    /** Waits (bounded) until the transaction is CompleteCommit or CompleteAbort: its markers are written. */
    static void awaitComplete(Session s, String transactionalId) throws Exception {
        long deadline = System.nanoTime() + COMPLETE_TIMEOUT_NS;
        try (RawConnection c = RawConnection.open(s.target.bootstrap)) {
            while (true) {
                DescribeTransactionsResponseData r = (DescribeTransactionsResponseData) c.send(
                        ApiKeys.DESCRIBE_TRANSACTIONS, DESCRIBE, new DescribeTransactionsRequestData()
                                .setTransactionalIds(List.of(transactionalId))).body();
                String state = r.transactionStates().get(0).transactionState();
                if (state.startsWith("Complete")) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(s.target + ": transaction " + transactionalId + " still " + state);
                }
                Target.pause();
            }
        }
    }
}
