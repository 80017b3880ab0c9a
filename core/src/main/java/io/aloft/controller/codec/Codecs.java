package io.aloft.controller.codec;

import io.aloft.controller.command.AllocateProducerIds;
import io.aloft.controller.command.AlterTopicConfigs;
import io.aloft.controller.command.BrokerHeartbeat;
import io.aloft.controller.command.CreatePartitions;
import io.aloft.controller.command.CreateTopic;
import io.aloft.controller.command.DeleteKv;
import io.aloft.controller.command.DeleteTopic;
import io.aloft.controller.command.DrainBroker;
import io.aloft.controller.command.Failure;
import io.aloft.controller.command.FenceBroker;
import io.aloft.controller.command.GetObjectsToDelete;
import io.aloft.controller.command.ObjectsDeleted;
import io.aloft.controller.command.PutKv;
import io.aloft.controller.command.ReassignPartition;
import io.aloft.controller.command.RegisterBroker;
import io.aloft.controller.command.Reply;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.RequestBatch;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.Endpoint;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.PartitionInfo;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.model.WatchResult;
import io.aloft.controller.query.Queries;
import io.aloft.controller.state.ControllerSnapshot;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.ObjectRef;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.S3Object;
import io.aloft.stream.metadata.StoredObject;
import io.aloft.stream.metadata.StreamInfo;
import io.aloft.stream.metadata.StreamMetadataSnapshot;
import io.aloft.stream.metadata.StreamObjectSpec;
import io.aloft.stream.metadata.StreamRange;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.util.List;

/** The one registry of types the controller writes to its log, replies and snapshots. */
public final class Codecs {
    private Codecs() {
    }

    /**
     * Append-only: an entry's position is its id in every log and snapshot ever written (see
     * {@link RecordCodec}). Add new types at the end.
     */
    private static final List<Class<?>> TYPES = List.of(
            // 0: envelope
            Request.class, Reply.class, Failure.class,
            // 3: stream and object commands (s3stream's request records as they are)
            CreateStreamRequest.class, OpenStreamRequest.class, CloseStreamRequest.class, TrimStreamRequest.class,
            DeleteStreamRequest.class, PrepareObjectsRequest.class, CommitStreamSetObjectRequest.class,
            CommitStreamObjectRequest.class, GetObjectsToDelete.class, ObjectsDeleted.class,
            // 13: stream and object values
            StreamRange.class, StreamObjectSpec.class, StreamInfo.class, StreamInfo.State.class, S3Object.class,
            S3Object.Type.class, S3Object.State.class, ObjectRef.class, StoredObject.class,
            StreamMetadataSnapshot.class,
            // 23: cluster commands
            RegisterBroker.class, BrokerHeartbeat.class, FenceBroker.class, DrainBroker.class,
            UnregisterBroker.class, CreateTopic.class, DeleteTopic.class, CreatePartitions.class,
            AlterTopicConfigs.class, ReassignPartition.class, PutKv.class, DeleteKv.class,
            // 35: cluster values
            Endpoint.class, BrokerState.class, BrokerInfo.class, PartitionInfo.class, TopicInfo.class,
            ClusterImage.class, MetadataEvent.class, WatchResult.class,
            // 43: queries
            Queries.DescribeCluster.class, Queries.GetTopics.class, Queries.GetObjects.class,
            Queries.GetStreamSetObjects.class, Queries.GetStreamObjects.class, Queries.DescribeStream.class,
            Queries.GetKv.class, Queries.Watch.class,
            // 51: snapshot
            ControllerSnapshot.class, ControllerSnapshot.Kv.class, ControllerSnapshot.Session.class,
            ControllerSnapshot.CachedReply.class,
            // 55: batching
            RequestBatch.class,
            // 56: producer ids
            AllocateProducerIds.class,
            // 57: key-value range read (dynamic broker configs)
            Queries.GetKvPrefix.class);

    /** The codec over {@link #TYPES}. */
    public static final RecordCodec CODEC = new RecordCodec(TYPES);
}
