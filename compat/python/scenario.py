"""Aloft's client-compatibility scenario with librdkafka, through confluent-kafka (Python).

The Java harness in compat/ runs it as a child process against Apache Kafka 4.3.1 (proof the scenario
is right) and against Aloft, once per pinned confluent-kafka version (each wheel bundles its own
librdkafka). The scenario: create a topic, produce keyed records, list offsets, consume them with a
consumer group from the beginning, commit, then read the committed offsets back and list and
describe the group and the topic. Every step prints one line; the last line is "OK ..." and the exit
status 0, or the failure on stderr with status 1. A step still waiting when --timeout passes exits
with status 2 and names the step, so a hang is reported as what it was waiting for.

With --group-protocol consumer the consumer uses the KIP-848 protocol (group.protocol=consumer,
librdkafka 2.4+; GA since 2.10): the broker assigns partitions through ConsumerGroupHeartbeat.

Admin calls newer than the oldest pinned version (describe_topics: 2.2, list_offsets: 2.3) are used
where the installed version has them; the Metadata and ListOffsets requests behind the older calls
are exercised either way.
"""

import argparse
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from steps import ScenarioError, current_step, fail, start_watchdog, step

KEY_COUNT = 17  # record i has key "key-<i mod 17>" and value "<i>": several records share a key
CALL_TIMEOUT = 10.0


def key_of(i):
    return "key-%d" % (i % KEY_COUNT)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--records", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=25.0)
    parser.add_argument("--group-protocol", choices=("classic", "consumer"), default="classic")
    o = parser.parse_args()
    start_watchdog(o.timeout)
    version = confluent_kafka.version()  # a (text, number) pair before 2.16, the text since
    print("confluent-kafka %s, librdkafka %s" % (version[0] if isinstance(version, tuple) else version,
                                                 confluent_kafka.libversion()[0]), flush=True)
    try:
        run(o)
    except (ScenarioError, KafkaException) as e:
        sys.stderr.write("FAILED: at step %r: %s\n" % (current_step(), e))
        sys.exit(1)
    print("OK librdkafka %s: %d records in %d partitions produced, consumed in order by group %s (%s protocol), "
          "offsets committed" % (confluent_kafka.libversion()[0], o.records, o.partitions, o.group,
                                 o.group_protocol), flush=True)


def run(o):
    base = {"bootstrap.servers": o.bootstrap, "client.id": "aloft-compat-librdkafka"}
    admin = AdminClient(dict(base))

    step("create topic %s with %d partitions" % (o.topic, o.partitions))
    admin.create_topics([NewTopic(o.topic, num_partitions=o.partitions, replication_factor=1)])[o.topic].result(
        CALL_TIMEOUT)

    step("list and describe topics")
    until_visible(lambda: describe_topic(admin, o))

    step("produce %d keyed records" % o.records)
    acked = produce(base, o)
    ends = check_acked(acked, o.partitions)

    step("list start and end offsets (ListOffsets)")
    check_listed_offsets(admin, base, o, ends)

    step("consume from the beginning with group %s (%s protocol)" % (o.group, o.group_protocol))
    settings = {"group.id": o.group, "auto.offset.reset": "earliest", "enable.auto.commit": False}
    if o.group_protocol == "consumer":
        settings["group.protocol"] = "consumer"
    consumer = Consumer(dict(base, **settings))
    consumer.subscribe([o.topic])
    consume(consumer, acked, o)

    step("commit")
    for tp in consumer.commit(asynchronous=False):
        if tp.error is not None:
            fail("commit of partition %d: %s" % (tp.partition, tp.error))

    step("describe group %s while its member is active" % o.group)
    describe_group(admin, o, "STABLE", 1)

    step("fetch committed offsets (OffsetFetch)")
    committed = consumer.committed([TopicPartition(o.topic, p) for p in range(o.partitions)], timeout=CALL_TIMEOUT)
    same_offsets("committed offsets (consumer)", {tp.partition: tp.offset for tp in committed}, ends)
    check_group_offsets(admin, o, ends)

    step("leave the group, then list groups and read offsets again")
    consumer.close()
    listed = admin.list_consumer_groups().result(CALL_TIMEOUT)
    ids = [g.group_id for g in listed.valid]
    if o.group not in ids:
        fail("list groups: %s missing from %s (errors: %s)" % (o.group, ids, listed.errors))
    describe_group(admin, o, "EMPTY", 0)
    check_group_offsets(admin, o, ends)


class NotYet(Exception):
    pass


def until_visible(check):
    """Retries check for up to 10 s: a broker learns a topic it just created from its metadata log
    asynchronously (Apache Kafka's KRaft brokers do), so a listing right after CreateTopics may not
    show it yet."""
    deadline = time.time() + 10
    while True:
        try:
            return check()
        except NotYet as e:
            if time.time() > deadline:
                fail(str(e))
            time.sleep(0.1)


def describe_topic(admin, o):
    md = admin.list_topics(timeout=CALL_TIMEOUT)
    if o.topic not in md.topics:
        raise NotYet("list topics: %s missing from %s" % (o.topic, sorted(md.topics)))
    t = md.topics[o.topic]
    if t.error is not None or len(t.partitions) != o.partitions:
        fail("metadata: topic error %s, %d partitions, expected %d" % (t.error, len(t.partitions), o.partitions))
    for p in t.partitions.values():
        if p.error is not None or p.leader < 0:
            fail("metadata: partition %d has leader %d, error %s" % (p.id, p.leader, p.error))
    if hasattr(admin, "describe_topics"):
        from confluent_kafka import TopicCollection
        d = admin.describe_topics(TopicCollection([o.topic]))[o.topic].result(CALL_TIMEOUT)
        if len(d.partitions) != o.partitions or any(p.leader is None for p in d.partitions):
            fail("describe topics: %s" % d)


def produce(base, o):
    acked = {}  # (partition, offset) -> record number
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append("record %s: %s" % (msg.value(), err))
            return
        where = (msg.partition(), msg.offset())
        if where in acked:
            errors.append("records %s and %s both acknowledged at %s" % (acked[where], msg.value(), where))
        acked[where] = int(msg.value())

    # Idempotence is what makes per-partition order a promise (librdkafka's default producer may reorder a
    # partition's records when it retries with several requests in flight); and the producer learns the topic's
    # partitions before the first record, so no record waits in librdkafka's not-yet-partitioned queue.
    producer = Producer(dict(base, **{"enable.idempotence": True}))
    producer.list_topics(o.topic, timeout=CALL_TIMEOUT)
    for i in range(o.records):
        producer.produce(o.topic, key=key_of(i), value=str(i), on_delivery=on_delivery)
        producer.poll(0)
    remaining = producer.flush(CALL_TIMEOUT)
    if remaining or errors or len(acked) != o.records:
        fail("%d records unacknowledged, %d acknowledged of %d; errors: %s" % (remaining, len(acked), o.records,
                                                                             errors[:5]))
    return acked


def check_acked(acked, partitions):
    """A fresh topic: each partition's offsets run 0..n-1, in send order, one partition per key."""
    ends = {p: 0 for p in range(partitions)}
    key_partition = {}
    for p in range(partitions):
        numbers = [i for (q, _), i in sorted(acked.items()) if q == p]
        offsets = sorted(off for (q, off) in acked if q == p)
        if offsets != list(range(len(offsets))):
            fail("partition %d: offsets acknowledged are not 0..%d: %s" % (p, len(offsets) - 1, offsets[:10]))
        if numbers != sorted(numbers):
            fail("partition %d: records acknowledged out of send order: %s" % (p, numbers[:20]))
        for i in numbers:
            if key_partition.setdefault(key_of(i), p) != p:
                fail("key %s acknowledged in partitions %d and %d" % (key_of(i), key_partition[key_of(i)], p))
        ends[p] = len(offsets)
    return ends


def check_listed_offsets(admin, base, o, ends):
    probe = Consumer(dict(base, **{"group.id": o.group + "-probe"}))
    try:
        for p in range(o.partitions):
            low, high = probe.get_watermark_offsets(TopicPartition(o.topic, p), timeout=CALL_TIMEOUT)
            if (low, high) != (0, ends[p]):
                fail("partition %d: watermarks (%d, %d), expected (0, %d)" % (p, low, high, ends[p]))
    finally:
        probe.close()
    if hasattr(admin, "list_offsets"):
        from confluent_kafka.admin import OffsetSpec
        for spec, want in ((OffsetSpec.earliest(), {p: 0 for p in ends}), (OffsetSpec.latest(), ends)):
            fs = admin.list_offsets({TopicPartition(o.topic, p): spec for p in range(o.partitions)})
            same_offsets("list_offsets", {tp.partition: f.result(CALL_TIMEOUT).offset for tp, f in fs.items()}, want)


def consume(consumer, acked, o):
    expected_next = {p: 0 for p in range(o.partitions)}
    count = 0
    while count < o.records:
        msg = consumer.poll(1.0)
        if msg is None:
            continue
        if msg.error() is not None:
            fail("poll: %s" % msg.error())
        p, off = msg.partition(), msg.offset()
        if off != expected_next.get(p):
            fail("partition %d: read offset %d, expected %s (records must arrive in order, once)"
                 % (p, off, expected_next.get(p)))
        want = acked.get((p, off))
        key, value = msg.key().decode(), msg.value().decode()
        if want is None or (key, value) != (key_of(want), str(want)):
            fail("partition %d offset %d: read key %r value %r, produced record %s" % (p, off, key, value, want))
        expected_next[p] = off + 1
        count += 1


def describe_group(admin, o, state, members):
    d = admin.describe_consumer_groups([o.group])[o.group].result(CALL_TIMEOUT)
    if d.state.name != state or len(d.members) != members:
        fail("describe group: state %s with %d members, expected %s with %d" % (d.state.name, len(d.members),
                                                                                state, members))
    for m in d.members:
        parts = sorted(tp.partition for tp in m.assignment.topic_partitions if tp.topic == o.topic)
        if parts != list(range(o.partitions)):
            fail("describe group: the member is assigned partitions %s of %s" % (parts, o.topic))


def check_group_offsets(admin, o, ends):
    from confluent_kafka import ConsumerGroupTopicPartitions
    request = ConsumerGroupTopicPartitions(o.group, [TopicPartition(o.topic, p) for p in range(o.partitions)])
    result = admin.list_consumer_group_offsets([request])[o.group].result(CALL_TIMEOUT)
    for tp in result.topic_partitions:
        if tp.error is not None:
            fail("committed offset of partition %d: %s" % (tp.partition, tp.error))
    same_offsets("committed offsets (admin)", {tp.partition: tp.offset for tp in result.topic_partitions}, ends)


def same_offsets(what, got, want):
    if any(got.get(p) != w for p, w in want.items()):
        fail("%s: %s, expected %s" % (what, dict(sorted(got.items())), dict(sorted(want.items()))))


if __name__ == "__main__":
    main()
