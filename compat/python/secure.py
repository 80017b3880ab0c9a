"""Aloft's secured-listener scenario with librdkafka, through confluent-kafka (Python).

The Java harness in compat/ (SecureClientsTest) runs it as a child process against one listener of
an Aloft broker: SSL, SSL with a client certificate (mTLS), SASL_PLAINTEXT or SASL_SSL with a SASL
mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512).

--expect ok: create a topic, produce --records records, consume them back in order with a consumer
group from the beginning and commit. --expect denied: a client with bad credentials (wrong password,
unknown user, untrusted or missing certificate) must be told so through its error callback with one of
the --denied-errors codes (e.g. _AUTHENTICATION, _SSL) whose text contains --denied-text if given,
and get no metadata. Every step prints one
line; the last line is "OK ..." and the exit status 0, or the failure on stderr with status 1. A step
still waiting when --timeout passes exits with status 2 and names the step.
"""

import argparse
import sys
import time

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from steps import ScenarioError, current_step, fail, start_watchdog, step

CALL_TIMEOUT = 10.0


def security(o):
    c = {"bootstrap.servers": o.bootstrap, "security.protocol": o.security_protocol}
    if o.ca:
        c["ssl.ca.location"] = o.ca
    if o.cert:
        c["ssl.certificate.location"] = o.cert
        c["ssl.key.location"] = o.key
    if o.mechanism:
        c["sasl.mechanism"] = o.mechanism
        c["sasl.username"] = o.username
        c["sasl.password"] = o.password
    return c


def round_trip(o):
    step("create topic %s" % o.topic)
    admin = AdminClient(security(o))
    futures = admin.create_topics([NewTopic(o.topic, num_partitions=1, replication_factor=1)],
                                  operation_timeout=CALL_TIMEOUT, request_timeout=CALL_TIMEOUT)
    futures[o.topic].result(timeout=CALL_TIMEOUT)

    step("produce %d records" % o.records)
    errors = []
    producer = Producer(dict(security(o), **{"enable.idempotence": True}))
    for i in range(o.records):
        producer.produce(o.topic, key=("k%d" % i).encode(), value=("%d" % i).encode(),
                         on_delivery=lambda err, msg: errors.append(err) if err else None)
        producer.poll(0)
    if producer.flush(CALL_TIMEOUT) != 0:
        fail("records still unsent after %ss" % CALL_TIMEOUT)
    if errors:
        fail("delivery failed: %s" % errors[0])

    step("consume them with group %s" % o.group)
    consumer = Consumer(dict(security(o), **{"group.id": o.group, "auto.offset.reset": "earliest",
                                              "enable.auto.commit": False}))
    consumer.subscribe([o.topic])
    seen = 0
    deadline = time.time() + o.timeout
    while seen < o.records and time.time() < deadline:
        msg = consumer.poll(1.0)
        if msg is None:
            continue
        if msg.error():
            fail("consume: %s" % msg.error())
        if msg.value() != ("%d" % seen).encode():
            fail("record %d is %r" % (seen, msg.value()))
        seen += 1
    if seen < o.records:
        fail("consumed %d of %d records" % (seen, o.records))
    step("commit")
    consumer.commit(asynchronous=False)
    consumer.close()
    return "%d records produced and consumed in order" % o.records


def denied(o):
    step("connect with bad credentials, expecting one of %s" % o.denied_errors)
    expected = [getattr(KafkaError, name) for name in o.denied_errors.split(",")]
    errors = []
    conf = dict(security(o), **{"error_cb": lambda err: errors.append(err), "socket.timeout.ms": 6000,
                                "reconnect.backoff.ms": 500})
    producer = Producer(conf)
    metadata = None
    try:
        metadata = producer.list_topics(timeout=6.0)
    except KafkaException as e:
        errors.append(e.args[0])
    deadline = time.time() + o.timeout / 2

    def matches(e):
        return e.code() in expected and (o.denied_text is None or o.denied_text in e.str())

    while not any(matches(e) for e in errors) and time.time() < deadline:
        producer.poll(0.5)
    if metadata is not None:
        fail("metadata served with bad credentials: %s" % metadata.topics)
    matched = [e for e in errors if matches(e)]
    if not matched:
        fail("no error among %s saying %r; errors seen: %s" % (o.denied_errors, o.denied_text,
                                                               [str(e) for e in errors]))
    return "denied: %s" % matched[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--security-protocol", required=True)
    parser.add_argument("--mechanism")
    parser.add_argument("--username")
    parser.add_argument("--password")
    parser.add_argument("--ca", help="PEM file of the CA certificates to trust")
    parser.add_argument("--cert", help="PEM file of the client certificate (mTLS)")
    parser.add_argument("--key", help="PEM file of the client's private key (mTLS)")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", default=None)
    parser.add_argument("--records", type=int, default=50)
    parser.add_argument("--expect", choices=("ok", "denied"), default="ok")
    parser.add_argument("--denied-errors", default="_AUTHENTICATION")
    parser.add_argument("--denied-text", default=None, help="text the denial's error must contain")
    parser.add_argument("--timeout", type=float, default=25.0)
    o = parser.parse_args()
    if o.group is None:
        o.group = o.topic + "-group"
    start_watchdog(o.timeout)
    version = confluent_kafka.version()
    print("confluent-kafka %s, librdkafka %s" % (version[0] if isinstance(version, tuple) else version,
                                                 confluent_kafka.libversion()[0]), flush=True)
    try:
        what = round_trip(o) if o.expect == "ok" else denied(o)
    except (ScenarioError, KafkaException, TimeoutError) as e:
        sys.stderr.write("FAILED: at step %r: %s\n" % (current_step(), e))
        sys.exit(1)
    print("OK librdkafka %s over %s%s: %s" % (confluent_kafka.libversion()[0], o.security_protocol,
                                             " " + o.mechanism if o.mechanism else "", what), flush=True)


if __name__ == "__main__":
    main()
