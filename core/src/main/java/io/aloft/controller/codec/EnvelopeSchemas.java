package io.aloft.controller.codec;

import static io.aloft.controller.codec.FieldType.ANY;
import static io.aloft.controller.codec.FieldType.ANY_RECORD;
import static io.aloft.controller.codec.FieldType.BOOLEAN;
import static io.aloft.controller.codec.FieldType.BYTES;
import static io.aloft.controller.codec.FieldType.INT32;
import static io.aloft.controller.codec.FieldType.INT64;
import static io.aloft.controller.codec.FieldType.STRING;
import static io.aloft.controller.codec.FieldType.listOf;
import static io.aloft.controller.codec.FieldType.nullable;
import static io.aloft.controller.codec.FieldType.record;
import static io.aloft.controller.model.FeatureLevel.INITIAL;

import io.aloft.controller.command.Failure;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.query.Queries;
import io.aloft.controller.state.ControllerSnapshot;

/**
 * Schemas of what carries the commands and their answers (requests, batches, replies, failures;
 * type ids 16 to 31), the queries (128 to 159) and the snapshot (160 to 175; see
 * {@link ControllerSchemas}).
 *
 * <p>Immutable constants.
 */
final class EnvelopeSchemas {
    private EnvelopeSchemas() {
    }

    // ---- envelope (16-31) ----

    static final RecordSchema<Request> REQUEST = RecordSchema.builder(16, "Request", Request.class)
            .version(0, INITIAL)
            .field("clientId", FieldType.UUID, Request::clientId)
            .field("sequence", INT64, Request::sequence)
            .field("nowMs", INT64, Request::nowMs)
            .field("command", ANY_RECORD, Request::command)
            .build(v -> new Request(v.get("clientId"), v.get("sequence"), v.get("nowMs"), v.get("command")));

    static final RecordSchema<Failure> FAILURE = RecordSchema.builder(18, "Failure", Failure.class)
            .version(0, INITIAL)
            .field("domain", STRING, Failure::domain)
            .field("code", STRING, Failure::code)
            .field("message", STRING, Failure::message)
            .build(v -> new Failure(v.get("domain"), v.get("code"), v.get("message")));

    static final RecordSchema<Reply> REPLY = RecordSchema.builder(17, "Reply", Reply.class)
            .version(0, INITIAL)
            .field("value", ANY, Reply::value)
            .field("failure", nullable(record(FAILURE)), Reply::failure)
            .build(v -> new Reply(v.get("value"), v.get("failure")));

    static final RecordSchema<RequestBatch> REQUEST_BATCH = RecordSchema.builder(19, "RequestBatch",
                    RequestBatch.class)
            .version(0, INITIAL)
            .field("requests", listOf(record(REQUEST)), RequestBatch::requests)
            .build(v -> new RequestBatch(v.get("requests")));

    // ---- queries (128-159) ----

    static final RecordSchema<Queries.DescribeCluster> DESCRIBE_CLUSTER = RecordSchema.builder(128,
                    "DescribeCluster", Queries.DescribeCluster.class)
            .version(0, INITIAL)
            .build(v -> new Queries.DescribeCluster());

    static final RecordSchema<Queries.GetTopics> GET_TOPICS = RecordSchema.builder(129, "GetTopics",
                    Queries.GetTopics.class)
            .version(0, INITIAL)
            .field("names", listOf(STRING), Queries.GetTopics::names)
            .build(v -> new Queries.GetTopics(v.get("names")));

    static final RecordSchema<Queries.GetObjects> GET_OBJECTS = RecordSchema.builder(130, "GetObjects",
                    Queries.GetObjects.class)
            .version(0, INITIAL)
            .field("streamId", INT64, Queries.GetObjects::streamId)
            .field("startOffset", INT64, Queries.GetObjects::startOffset)
            .field("endOffset", INT64, Queries.GetObjects::endOffset)
            .field("limit", INT32, Queries.GetObjects::limit)
            .build(v -> new Queries.GetObjects(v.get("streamId"), v.get("startOffset"), v.get("endOffset"),
                    v.get("limit")));

    static final RecordSchema<Queries.GetStreamSetObjects> GET_STREAM_SET_OBJECTS = RecordSchema.builder(131,
                    "GetStreamSetObjects", Queries.GetStreamSetObjects.class)
            .version(0, INITIAL)
            .field("nodeId", INT32, Queries.GetStreamSetObjects::nodeId)
            .build(v -> new Queries.GetStreamSetObjects(v.get("nodeId")));

    static final RecordSchema<Queries.GetStreamObjects> GET_STREAM_OBJECTS = RecordSchema.builder(132,
                    "GetStreamObjects", Queries.GetStreamObjects.class)
            .version(0, INITIAL)
            .field("streamId", INT64, Queries.GetStreamObjects::streamId)
            .field("startOffset", INT64, Queries.GetStreamObjects::startOffset)
            .field("endOffset", INT64, Queries.GetStreamObjects::endOffset)
            .field("limit", INT32, Queries.GetStreamObjects::limit)
            .build(v -> new Queries.GetStreamObjects(v.get("streamId"), v.get("startOffset"), v.get("endOffset"),
                    v.get("limit")));

    static final RecordSchema<Queries.DescribeStream> DESCRIBE_STREAM = RecordSchema.builder(133, "DescribeStream",
                    Queries.DescribeStream.class)
            .version(0, INITIAL)
            .field("streamId", INT64, Queries.DescribeStream::streamId)
            .build(v -> new Queries.DescribeStream(v.get("streamId")));

    static final RecordSchema<Queries.GetKv> GET_KV = RecordSchema.builder(134, "GetKv", Queries.GetKv.class)
            .version(0, INITIAL)
            .field("key", STRING, Queries.GetKv::key)
            .build(v -> new Queries.GetKv(v.get("key")));

    static final RecordSchema<Queries.GetKvPrefix> GET_KV_PREFIX = RecordSchema.builder(135, "GetKvPrefix",
                    Queries.GetKvPrefix.class)
            .version(0, INITIAL)
            .field("prefix", STRING, Queries.GetKvPrefix::prefix)
            .build(v -> new Queries.GetKvPrefix(v.get("prefix")));

    static final RecordSchema<Queries.Watch> WATCH = RecordSchema.builder(136, "Watch", Queries.Watch.class)
            .version(0, INITIAL)
            .field("fromIndex", INT64, Queries.Watch::fromIndex)
            .field("maxWaitMs", INT64, Queries.Watch::maxWaitMs)
            .build(v -> new Queries.Watch(v.get("fromIndex"), v.get("maxWaitMs")));

    static final RecordSchema<Queries.DescribeFeatures> DESCRIBE_FEATURES = RecordSchema.builder(137,
                    "DescribeFeatures", Queries.DescribeFeatures.class)
            .version(0, INITIAL)
            .build(v -> new Queries.DescribeFeatures());

    // ---- snapshot (160-175) ----

    static final RecordSchema<ControllerSnapshot.Kv> SNAPSHOT_KV = RecordSchema.builder(161, "SnapshotKv",
                    ControllerSnapshot.Kv.class)
            .version(0, INITIAL)
            .field("key", STRING, ControllerSnapshot.Kv::key)
            .field("value", BYTES, ControllerSnapshot.Kv::value)
            .build(v -> new ControllerSnapshot.Kv(v.get("key"), v.get("value")));

    static final RecordSchema<ControllerSnapshot.CachedReply> SNAPSHOT_CACHED_REPLY = RecordSchema.builder(163,
                    "SnapshotCachedReply", ControllerSnapshot.CachedReply.class)
            .version(0, INITIAL)
            .field("sequence", INT64, ControllerSnapshot.CachedReply::sequence)
            .field("reply", record(REPLY), ControllerSnapshot.CachedReply::reply)
            .build(v -> new ControllerSnapshot.CachedReply(v.get("sequence"), v.get("reply")));

    static final RecordSchema<ControllerSnapshot.Session> SNAPSHOT_SESSION = RecordSchema.builder(162,
                    "SnapshotSession", ControllerSnapshot.Session.class)
            .version(0, INITIAL)
            .field("clientId", FieldType.UUID, ControllerSnapshot.Session::clientId)
            .field("lastUsedMs", INT64, ControllerSnapshot.Session::lastUsedMs)
            .field("replies", listOf(record(SNAPSHOT_CACHED_REPLY)), ControllerSnapshot.Session::replies)
            .build(v -> new ControllerSnapshot.Session(v.get("clientId"), v.get("lastUsedMs"), v.get("replies")));

    static final RecordSchema<ControllerSnapshot> SNAPSHOT = RecordSchema.builder(160, "ControllerSnapshot",
                    ControllerSnapshot.class)
            .version(0, INITIAL)
            .field("streams", record(StreamSchemas.STREAM_METADATA_SNAPSHOT), ControllerSnapshot::streams)
            .field("finalizedFeatureLevel", INT32, ControllerSnapshot::finalizedFeatureLevel)
            .field("voterFeatures", listOf(record(ClusterSchemas.VOTER_FEATURES)), ControllerSnapshot::voterFeatures)
            .field("featureLevelBootstrapped", BOOLEAN, ControllerSnapshot::featureLevelBootstrapped)
            .field("nextBrokerEpoch", INT64, ControllerSnapshot::nextBrokerEpoch)
            .field("brokers", listOf(record(ClusterSchemas.BROKER_INFO)), ControllerSnapshot::brokers)
            .field("topics", listOf(record(ClusterSchemas.TOPIC_INFO)), ControllerSnapshot::topics)
            .field("kv", listOf(record(SNAPSHOT_KV)), ControllerSnapshot::kv)
            .field("nextProducerId", INT64, ControllerSnapshot::nextProducerId)
            .field("clockMs", INT64, ControllerSnapshot::clockMs)
            .field("lastSessionSweepMs", INT64, ControllerSnapshot::lastSessionSweepMs)
            .field("sessions", listOf(record(SNAPSHOT_SESSION)), ControllerSnapshot::sessions)
            .build(v -> new ControllerSnapshot(v.get("streams"), v.get("nextBrokerEpoch"), v.get("brokers"),
                    v.get("topics"), v.get("kv"), v.get("clockMs"), v.get("lastSessionSweepMs"), v.get("sessions"),
                    v.get("nextProducerId"), v.get("finalizedFeatureLevel"), v.get("voterFeatures"),
                    v.get("featureLevelBootstrapped")));

    static void addTo(SchemaRegistry.Builder registry) {
        registry.add(REQUEST).add(REPLY).add(FAILURE).add(REQUEST_BATCH)
                .add(DESCRIBE_CLUSTER).add(GET_TOPICS).add(GET_OBJECTS).add(GET_STREAM_SET_OBJECTS)
                .add(GET_STREAM_OBJECTS).add(DESCRIBE_STREAM).add(GET_KV).add(GET_KV_PREFIX).add(WATCH)
                .add(DESCRIBE_FEATURES)
                .add(SNAPSHOT).add(SNAPSHOT_KV).add(SNAPSHOT_SESSION).add(SNAPSHOT_CACHED_REPLY);
    }
}
