package io.aloft.controller.codec;

import static io.aloft.controller.codec.FieldType.INT32;
import static io.aloft.controller.codec.FieldType.INT64;
import static io.aloft.controller.codec.FieldType.enumOf;
import static io.aloft.controller.codec.FieldType.listOf;
import static io.aloft.controller.codec.FieldType.record;
import static io.aloft.controller.model.FeatureLevel.INITIAL;
import static io.aloft.controller.model.FeatureLevel.KEY_COMPACTION;

import io.aloft.controller.command.GetObjectsToDelete;
import io.aloft.controller.command.ObjectsDeleted;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StoredObject;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadataSnapshot;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;

/**
 * Schemas of streams and objects: s3stream's request and value records (which stay plain Java
 * records; s3stream knows nothing of this codec) and the controller's own object commands. Type
 * ids 32 to 63 (see {@link ControllerSchemas}).
 *
 * <p>Immutable constants.
 */
final class StreamSchemas {
    private StreamSchemas() {
    }

    // ---- values (48-63) ----

    static final RecordSchema<StreamRange> STREAM_RANGE = RecordSchema.builder(48, "StreamRange", StreamRange.class)
            .version(0, INITIAL)
            .field("streamId", INT64, StreamRange::streamId)
            .field("epoch", INT64, StreamRange::epoch)
            .field("startOffset", INT64, StreamRange::startOffset)
            .field("endOffset", INT64, StreamRange::endOffset)
            .build(v -> new StreamRange(v.get("streamId"), v.get("epoch"), v.get("startOffset"), v.get("endOffset")));

    static final RecordSchema<StreamObjectSpec> STREAM_OBJECT_SPEC = RecordSchema.builder(49, "StreamObjectSpec",
                    StreamObjectSpec.class)
            .version(0, INITIAL)
            .field("objectId", INT64, StreamObjectSpec::objectId)
            .field("objectSize", INT64, StreamObjectSpec::objectSize)
            .field("range", record(STREAM_RANGE), StreamObjectSpec::range)
            .build(v -> new StreamObjectSpec(v.get("objectId"), v.get("objectSize"), v.get("range")));

    static final EnumSchema<StreamInfo.State> STREAM_STATE = EnumSchema.builder(51, "StreamState",
                    StreamInfo.State.class)
            .constant(0, "OPEN", StreamInfo.State.OPEN)
            .constant(1, "CLOSED", StreamInfo.State.CLOSED)
            .build();

    static final RecordSchema<StreamInfo> STREAM_INFO = RecordSchema.builder(50, "StreamInfo", StreamInfo.class)
            .version(0, INITIAL)
            .field("streamId", INT64, StreamInfo::streamId)
            .field("epoch", INT64, StreamInfo::epoch)
            .field("state", enumOf(STREAM_STATE), StreamInfo::state)
            .field("startOffset", INT64, StreamInfo::startOffset)
            .field("endOffset", INT64, StreamInfo::endOffset)
            .field("ownerNodeId", INT32, StreamInfo::ownerNodeId)
            .build(v -> new StreamInfo(v.get("streamId"), v.get("epoch"), v.get("state"), v.get("startOffset"),
                    v.get("endOffset"), v.get("ownerNodeId")));

    static final EnumSchema<S3Object.Type> OBJECT_TYPE = EnumSchema.builder(53, "ObjectType", S3Object.Type.class)
            .constant(0, "STREAM_SET", S3Object.Type.STREAM_SET)
            .constant(1, "STREAM", S3Object.Type.STREAM)
            .constant(2, "UNKNOWN", S3Object.Type.UNKNOWN)
            .build();

    static final EnumSchema<S3Object.State> OBJECT_STATE = EnumSchema.builder(54, "ObjectState", S3Object.State.class)
            .constant(0, "PREPARED", S3Object.State.PREPARED)
            .constant(1, "COMMITTED", S3Object.State.COMMITTED)
            .constant(2, "MARKED_FOR_DELETION", S3Object.State.MARKED_FOR_DELETION)
            .build();

    static final RecordSchema<S3Object> S3_OBJECT = RecordSchema.builder(52, "S3Object", S3Object.class)
            .version(0, INITIAL)
            .field("objectId", INT64, S3Object::objectId)
            .field("type", enumOf(OBJECT_TYPE), S3Object::type)
            .field("state", enumOf(OBJECT_STATE), S3Object::state)
            .field("size", INT64, S3Object::size)
            .field("ranges", listOf(record(STREAM_RANGE)), S3Object::ranges)
            .field("nodeId", INT32, S3Object::nodeId)
            .field("committedAtMs", INT64, S3Object::committedAtMs)
            .field("markedForDeletionAtMs", INT64, S3Object::markedForDeletionAtMs)
            .build(v -> new S3Object(v.get("objectId"), v.get("type"), v.get("state"), v.get("size"), v.get("ranges"),
                    v.get("nodeId"), v.get("committedAtMs"), v.get("markedForDeletionAtMs")));

    static final RecordSchema<ObjectRef> OBJECT_REF = RecordSchema.builder(55, "ObjectRef", ObjectRef.class)
            .version(0, INITIAL)
            .field("objectId", INT64, ObjectRef::objectId)
            .field("type", enumOf(OBJECT_TYPE), ObjectRef::type)
            .field("objectSize", INT64, ObjectRef::objectSize)
            .field("range", record(STREAM_RANGE), ObjectRef::range)
            .build(v -> new ObjectRef(v.get("objectId"), v.get("type"), v.get("objectSize"), v.get("range")));

    static final RecordSchema<StoredObject> STORED_OBJECT = RecordSchema.builder(56, "StoredObject",
                    StoredObject.class)
            .version(0, INITIAL)
            .field("object", record(S3_OBJECT), StoredObject::object)
            .field("preparedUntilMs", INT64, StoredObject::preparedUntilMs)
            .field("orderKey", INT64, StoredObject::orderKey)
            .build(v -> new StoredObject(v.get("object"), v.get("preparedUntilMs"), v.get("orderKey")));

    static final RecordSchema<StreamMetadataSnapshot> STREAM_METADATA_SNAPSHOT = RecordSchema.builder(57,
                    "StreamMetadataSnapshot", StreamMetadataSnapshot.class)
            .version(0, INITIAL)
            .field("nextStreamId", INT64, StreamMetadataSnapshot::nextStreamId)
            .field("nextObjectId", INT64, StreamMetadataSnapshot::nextObjectId)
            .field("nextOrderKey", INT64, StreamMetadataSnapshot::nextOrderKey)
            .field("clockMs", INT64, StreamMetadataSnapshot::clockMs)
            .field("streams", listOf(record(STREAM_INFO)), StreamMetadataSnapshot::streams)
            .field("objects", listOf(record(STORED_OBJECT)), StreamMetadataSnapshot::objects)
            .build(v -> new StreamMetadataSnapshot(v.get("nextStreamId"), v.get("nextObjectId"),
                    v.get("nextOrderKey"), v.get("clockMs"), v.get("streams"), v.get("objects")));

    // ---- commands (32-47) ----

    static final RecordSchema<CreateStreamRequest> CREATE_STREAM = RecordSchema.builder(32, "CreateStream",
                    CreateStreamRequest.class)
            .version(0, INITIAL)
            .field("nodeId", INT32, CreateStreamRequest::nodeId)
            .build(v -> new CreateStreamRequest(v.get("nodeId")));

    static final RecordSchema<OpenStreamRequest> OPEN_STREAM = RecordSchema.builder(33, "OpenStream",
                    OpenStreamRequest.class)
            .version(0, INITIAL)
            .field("streamId", INT64, OpenStreamRequest::streamId)
            .field("epoch", INT64, OpenStreamRequest::epoch)
            .field("nodeId", INT32, OpenStreamRequest::nodeId)
            .build(v -> new OpenStreamRequest(v.get("streamId"), v.get("epoch"), v.get("nodeId")));

    static final RecordSchema<CloseStreamRequest> CLOSE_STREAM = RecordSchema.builder(34, "CloseStream",
                    CloseStreamRequest.class)
            .version(0, INITIAL)
            .field("streamId", INT64, CloseStreamRequest::streamId)
            .field("epoch", INT64, CloseStreamRequest::epoch)
            .field("nodeId", INT32, CloseStreamRequest::nodeId)
            .build(v -> new CloseStreamRequest(v.get("streamId"), v.get("epoch"), v.get("nodeId")));

    static final RecordSchema<TrimStreamRequest> TRIM_STREAM = RecordSchema.builder(35, "TrimStream",
                    TrimStreamRequest.class)
            .version(0, INITIAL)
            .field("streamId", INT64, TrimStreamRequest::streamId)
            .field("epoch", INT64, TrimStreamRequest::epoch)
            .field("newStartOffset", INT64, TrimStreamRequest::newStartOffset)
            .build(v -> new TrimStreamRequest(v.get("streamId"), v.get("epoch"), v.get("newStartOffset")));

    static final RecordSchema<DeleteStreamRequest> DELETE_STREAM = RecordSchema.builder(36, "DeleteStream",
                    DeleteStreamRequest.class)
            .version(0, INITIAL)
            .field("streamId", INT64, DeleteStreamRequest::streamId)
            .field("epoch", INT64, DeleteStreamRequest::epoch)
            .build(v -> new DeleteStreamRequest(v.get("streamId"), v.get("epoch")));

    static final RecordSchema<PrepareObjectsRequest> PREPARE_OBJECTS = RecordSchema.builder(37, "PrepareObjects",
                    PrepareObjectsRequest.class)
            .version(0, INITIAL)
            .field("nodeId", INT32, PrepareObjectsRequest::nodeId)
            .field("count", INT32, PrepareObjectsRequest::count)
            .field("ttlMs", INT64, PrepareObjectsRequest::ttlMs)
            .field("nowMs", INT64, PrepareObjectsRequest::nowMs)
            .build(v -> new PrepareObjectsRequest(v.get("nodeId"), v.get("count"), v.get("ttlMs"), v.get("nowMs")));

    static final RecordSchema<CommitStreamSetObjectRequest> COMMIT_STREAM_SET_OBJECT = RecordSchema.builder(38,
                    "CommitStreamSetObject", CommitStreamSetObjectRequest.class)
            .version(0, INITIAL)
            .field("nodeId", INT32, CommitStreamSetObjectRequest::nodeId)
            .field("objectId", INT64, CommitStreamSetObjectRequest::objectId)
            .field("objectSize", INT64, CommitStreamSetObjectRequest::objectSize)
            .field("ranges", listOf(record(STREAM_RANGE)), CommitStreamSetObjectRequest::ranges)
            .field("streamObjects", listOf(record(STREAM_OBJECT_SPEC)), CommitStreamSetObjectRequest::streamObjects)
            .field("compactedObjectIds", listOf(INT64), CommitStreamSetObjectRequest::compactedObjectIds)
            .field("nowMs", INT64, CommitStreamSetObjectRequest::nowMs)
            .build(v -> new CommitStreamSetObjectRequest(v.get("nodeId"), v.get("objectId"), v.get("objectSize"),
                    v.get("ranges"), v.get("streamObjects"), v.get("compactedObjectIds"), v.get("nowMs")));

    static final RecordSchema<CommitStreamObjectRequest> COMMIT_STREAM_OBJECT = RecordSchema.builder(39,
                    "CommitStreamObject", CommitStreamObjectRequest.class)
            .version(0, INITIAL)
            .field("object", record(STREAM_OBJECT_SPEC), CommitStreamObjectRequest::object)
            .field("sourceObjectIds", listOf(INT64), CommitStreamObjectRequest::sourceObjectIds)
            .field("nowMs", INT64, CommitStreamObjectRequest::nowMs)
            .build(v -> new CommitStreamObjectRequest(v.get("object"), v.get("sourceObjectIds"), v.get("nowMs")));

    static final RecordSchema<GetObjectsToDelete> GET_OBJECTS_TO_DELETE = RecordSchema.builder(40,
                    "GetObjectsToDelete", GetObjectsToDelete.class)
            .version(0, INITIAL)
            .field("nowMs", INT64, GetObjectsToDelete::nowMs)
            .field("delayMs", INT64, GetObjectsToDelete::delayMs)
            .build(v -> new GetObjectsToDelete(v.get("nowMs"), v.get("delayMs")));

    static final RecordSchema<ObjectsDeleted> OBJECTS_DELETED = RecordSchema.builder(41, "ObjectsDeleted",
                    ObjectsDeleted.class)
            .version(0, INITIAL)
            .field("objectIds", listOf(INT64), ObjectsDeleted::objectIds)
            .build(v -> new ObjectsDeleted(v.get("objectIds")));

    static final RecordSchema<ReplaceStreamRangeRequest> REPLACE_STREAM_RANGE = RecordSchema.builder(42,
                    "ReplaceStreamRange", ReplaceStreamRangeRequest.class)
            .version(0, KEY_COMPACTION)
            .field("streamId", INT64, ReplaceStreamRangeRequest::streamId)
            .field("epoch", INT64, ReplaceStreamRangeRequest::epoch)
            .field("startOffset", INT64, ReplaceStreamRangeRequest::startOffset)
            .field("endOffset", INT64, ReplaceStreamRangeRequest::endOffset)
            .field("objects", listOf(record(STREAM_OBJECT_SPEC)), ReplaceStreamRangeRequest::objects)
            .field("nowMs", INT64, ReplaceStreamRangeRequest::nowMs)
            .build(v -> new ReplaceStreamRangeRequest(v.get("streamId"), v.get("epoch"), v.get("startOffset"),
                    v.get("endOffset"), v.get("objects"), v.get("nowMs")));

    static void addTo(SchemaRegistry.Builder registry) {
        registry.add(CREATE_STREAM).add(OPEN_STREAM).add(CLOSE_STREAM).add(TRIM_STREAM).add(DELETE_STREAM)
                .add(PREPARE_OBJECTS).add(COMMIT_STREAM_SET_OBJECT).add(COMMIT_STREAM_OBJECT)
                .add(GET_OBJECTS_TO_DELETE).add(OBJECTS_DELETED).add(REPLACE_STREAM_RANGE)
                .add(STREAM_RANGE).add(STREAM_OBJECT_SPEC).add(STREAM_INFO).add(STREAM_STATE).add(S3_OBJECT)
                .add(OBJECT_TYPE).add(OBJECT_STATE).add(OBJECT_REF).add(STORED_OBJECT).add(STREAM_METADATA_SNAPSHOT);
    }
}
