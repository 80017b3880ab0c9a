"""Transactions with librdkafka, through confluent-kafka (Python): Aloft's issue 16 scenario.

The Java harness in compat/ (ClientCompatibilityTests) runs it as a child process against Apache
Kafka 4.3.1 (proof the scenario is right) and against Aloft. The
scenario: create a topic; a transactional producer (init_transactions) commits a transaction over
every partition, aborts one, commits another; a second producer with the same transactional.id
fences the first, whose next transaction then fails as fenced; two consumers (one per isolation
level, partitions assigned, nothing committed) read every partition to its end. read_committed must
see exactly the committed records, each once and in order, and read_uncommitted every record
produced, aborted ones included. Last, a group member reads the committed records and its positions
are committed in a transaction (send_offsets_to_transaction); the group's committed offsets must be
those positions. Every step prints one line; the last line is "OK ..." and the exit
status 0, or the failure on stderr with status 1. A step still waiting when --timeout passes exits
with status 2 and names the step.
"""

import argparse
import sys

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from steps import ScenarioError, current_step, fail, start_watchdog, step

CALL_TIMEOUT = 15.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--records", type=int, default=5, help="records per partition per transaction")
    parser.add_argument("--timeout", type=float, default=25.0)
    o = parser.parse_args()
    start_watchdog(o.timeout)
    version = confluent_kafka.version()
    print("confluent-kafka %s, librdkafka %s" % (version[0] if isinstance(version, tuple) else version,
                                                 confluent_kafka.libversion()[0]), flush=True)
    try:
        counts = run(o)
    except (ScenarioError, KafkaException) as e:
        sys.stderr.write("FAILED: at step %r: %s\n" % (current_step(), e))
        sys.exit(1)
    print("OK librdkafka %s: %d committed and %d aborted records over %d partitions; read_committed read exactly "
          "the committed ones, read_uncommitted all; the fenced producer was refused; a group's offsets were "
          "committed in a transaction"
          % (confluent_kafka.libversion()[0], counts[0], counts[1], o.partitions), flush=True)


def run(o):
    base = {"bootstrap.servers": o.bootstrap, "socket.timeout.ms": 10000}
    step("create topic %s with %d partitions" % (o.topic, o.partitions))
    admin = AdminClient(base)
    admin.create_topics([NewTopic(o.topic, num_partitions=o.partitions, replication_factor=1)])[o.topic].result(
        CALL_TIMEOUT)

    transactional_id = o.topic + "-tx"
    producer = Producer(dict(base, **{"transactional.id": transactional_id, "linger.ms": 5,
                                      "transaction.timeout.ms": 60000}))
    step("init_transactions")
    producer.init_transactions(CALL_TIMEOUT)
    produced = []  # (partition, value, committed) in the order produced
    transaction(producer, o, "first", produced, commit=True)
    transaction(producer, o, "second", produced, commit=False)
    transaction(producer, o, "third", produced, commit=True)

    step("a second producer with the same transactional.id fences the first")
    successor = Producer(dict(base, **{"transactional.id": transactional_id}))
    successor.init_transactions(CALL_TIMEOUT)
    fenced(producer, o)
    transaction(successor, o, "successor", produced, commit=True)
    successor.flush(CALL_TIMEOUT)

    committed = [(p, v) for p, v, c in produced if c]
    step("read_committed reads exactly the committed records")
    same_records("read_committed", read_all(base, o, "read_committed"), committed, o)
    step("read_uncommitted reads every record produced")
    same_records("read_uncommitted", read_all(base, o, "read_uncommitted"), [(p, v) for p, v, _ in produced], o)
    offsets_in_transaction(base, o, successor, len(committed))
    return len(committed), len(produced) - len(committed)


def offsets_in_transaction(base, o, producer, count):
    """A group member reads every committed record; its positions are committed in a transaction
    (send_offsets_to_transaction: AddOffsetsToTxn, then TxnOffsetCommit at the group coordinator), and
    the group's committed offsets must be those positions once the transaction commits."""
    step("a group member reads the committed records; send_offsets_to_transaction commits its positions")
    consumer = Consumer(dict(base, **{"group.id": o.topic + "-eos", "isolation.level": "read_committed",
                                      "enable.auto.commit": False, "auto.offset.reset": "earliest"}))
    try:
        consumer.subscribe([o.topic])
        read = 0
        while read < count:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error() is not None:
                fail("group member poll: %s" % msg.error())
            read += 1
        assignment = consumer.assignment()
        if len(assignment) != o.partitions:
            fail("the group member is assigned %s" % assignment)
        positions = consumer.position(assignment)
        producer.begin_transaction()
        producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), CALL_TIMEOUT)
        producer.commit_transaction(CALL_TIMEOUT)
        committed = consumer.committed(assignment, timeout=CALL_TIMEOUT)
        want = {tp.partition: tp.offset for tp in positions}
        got = {tp.partition: tp.offset for tp in committed}
        if got != want:
            fail("committed offsets %s, expected the positions %s" % (got, want))
    finally:
        consumer.close()


def transaction(producer, o, name, out, commit):
    step("begin, produce, %s transaction %s" % ("commit" if commit else "abort", name))
    producer.begin_transaction()
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(err)

    for p in range(o.partitions):
        for i in range(o.records):
            value = "%s-%d-%d" % (name, p, i)
            producer.produce(o.topic, key=value.encode(), value=value.encode(), partition=p,
                             on_delivery=on_delivery)
            out.append((p, value, commit))
    if commit:
        producer.commit_transaction(CALL_TIMEOUT)
    else:
        producer.flush(CALL_TIMEOUT)
        producer.abort_transaction(CALL_TIMEOUT)
    if errors:
        fail("transaction %s: deliveries failed: %s" % (name, errors[:3]))


def fenced(producer, o):
    """The fenced producer's next transaction must fail with a fatal (fenced) error, writing nothing visible."""
    try:
        producer.begin_transaction()
        producer.produce(o.topic, value=b"zombie", partition=0)
        producer.commit_transaction(CALL_TIMEOUT)
    except KafkaException as e:
        err = e.args[0]
        if err.fatal() or err.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                                         KafkaError.INVALID_PRODUCER_EPOCH):
            print("fenced producer refused: %s" % err, flush=True)
            return
        fail("fenced producer: expected a fatal fenced error, got %s" % err)
    fail("the fenced producer committed a transaction")


def read_all(base, o, isolation):
    """Every record of every partition up to its end, in order, with a consumer of that isolation level."""
    consumer = Consumer(dict(base, **{"group.id": o.topic + "-" + isolation, "isolation.level": isolation,
                                      "enable.auto.commit": False, "auto.offset.reset": "earliest"}))
    try:
        ends = {}
        for p in range(o.partitions):
            _, high = consumer.get_watermark_offsets(TopicPartition(o.topic, p), timeout=CALL_TIMEOUT)
            ends[p] = high
        consumer.assign([TopicPartition(o.topic, p, 0) for p in range(o.partitions)])
        records = []
        done = set(p for p, end in ends.items() if end == 0)
        while len(done) < o.partitions:
            msg = consumer.poll(1.0)
            if msg is None:
                # Transaction markers take offsets but are not records: a partition is done once the
                # consumer's position reaches its end.
                for tp in consumer.position([TopicPartition(o.topic, p) for p in range(o.partitions)]):
                    if tp.offset >= ends[tp.partition]:
                        done.add(tp.partition)
                continue
            if msg.error() is not None:
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    continue
                fail("%s poll: %s" % (isolation, msg.error()))
            records.append((msg.partition(), msg.value().decode()))
            if msg.offset() + 1 >= ends[msg.partition()]:
                done.add(msg.partition())
        return records
    finally:
        consumer.close()


def same_records(what, got, want, o):
    for p in range(o.partitions):
        g = [v for q, v in got if q == p]
        w = [v for q, v in want if q == p]
        if g != w:
            fail("%s, partition %d: read %d records %s..., expected %d %s..." % (what, p, len(g), g[:6], len(w),
                                                                               w[:6]))


if __name__ == "__main__":
    main()
