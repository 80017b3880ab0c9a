package io.aloft.controller.state;

import io.aloft.controller.ControllerException;
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
import io.aloft.controller.command.ReportVoterFeatures;
import io.aloft.controller.command.Request;
import io.aloft.controller.command.UnregisterBroker;
import io.aloft.controller.command.UpdateFeatureLevel;
import io.aloft.controller.model.BrokerInfo;
import io.aloft.controller.model.BrokerState;
import io.aloft.controller.model.ClusterImage;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.MetadataEvent;
import io.aloft.controller.model.SecurityKeys;
import io.aloft.controller.model.TopicInfo;
import io.aloft.controller.model.WalMarkers;
import io.aloft.controller.query.Queries;
import io.aloft.stream.metadata.CloseStreamRequest;
import io.aloft.stream.metadata.CommitStreamObjectRequest;
import io.aloft.stream.metadata.CommitStreamSetObjectRequest;
import io.aloft.stream.metadata.CreateStreamRequest;
import io.aloft.stream.metadata.DeleteStreamRequest;
import io.aloft.stream.metadata.OpenStreamRequest;
import io.aloft.stream.metadata.PrepareObjectsRequest;
import io.aloft.stream.metadata.ReplaceStreamRangeRequest;
import io.aloft.stream.metadata.StreamMetadataException;
import io.aloft.stream.metadata.StreamMetadataState;
import io.aloft.stream.metadata.TrimStreamRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The whole controller state: streams and objects ({@link StreamMetadataState}), brokers, topics
 * and partitions ({@link ClusterState}), the cluster's feature level ({@link FeatureState}), a
 * key-value space, and the request log that makes retries idempotent. Deterministic: the same
 * requests in the same order give the same state and replies on every replica; a rejected command
 * changes nothing (only its reply is remembered, so a retry gets the same answer).
 *
 * <p>Not thread-safe: the state machine applies commands on one thread and serves reads under a lock.
 */
public final class ControllerState {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ControllerState.class);

    private StreamMetadataState streams;
    private final FeatureState features = new FeatureState();
    private ClusterState cluster;
    private final TreeMap<String, byte[]> kv = new TreeMap<>();
    private final RequestLog requests = new RequestLog();
    private long clockMs;
    private long nextProducerId;

    /** An empty state. */
    public ControllerState() {
        this.streams = new StreamMetadataState();
        this.cluster = new ClusterState(streams, features);
    }

    /**
     * Applies one request from the log at {@code index}; cluster changes are passed to {@code events}.
     * Never throws for a bad command: rejections are replies.
     */
    public Reply apply(long index, Request request, Consumer<MetadataEvent> events) {
        clockMs = Math.max(clockMs, request.nowMs());
        Reply reply;
        try {
            Reply earlier = requests.lookup(request.clientId(), request.sequence());
            if (earlier != null) {
                return earlier;
            }
            List<MetadataEvent> changes = new ArrayList<>();
            reply = Reply.of(execute(request.command(), index, changes::add));
            changes.forEach(events);
        } catch (ControllerException e) {
            if (e.code() == ControllerException.Code.REQUEST_TOO_OLD) {
                return failure(e); // not remembered: it is about a request we no longer know
            }
            reply = failure(e);
        } catch (StreamMetadataException e) {
            reply = failure(e);
        } catch (RuntimeException e) {
            // A bug, not bad input (commands are validated before they change anything). Every
            // replica hits it at the same entry; answering it keeps the quorum serving instead of
            // stopping every voter at this entry.
            log.error("Command {} failed unexpectedly at index {}", request.command(), index, e);
            reply = Reply.failed(new Failure(Failure.CONTROLLER, ControllerException.Code.INVALID_REQUEST.name(),
                    "internal error: " + e));
        }
        requests.record(request.clientId(), request.sequence(), reply, clockMs);
        requests.expire(clockMs);
        return reply;
    }

    private Object execute(Object command, long index, Consumer<MetadataEvent> events) {
        // Streams and objects.
        if (command instanceof CreateStreamRequest c) {
            return streams.createStream(c);
        } else if (command instanceof OpenStreamRequest c) {
            return streams.openStream(c);
        } else if (command instanceof CloseStreamRequest c) {
            streams.closeStream(c);
        } else if (command instanceof TrimStreamRequest c) {
            streams.trimStream(c);
        } else if (command instanceof DeleteStreamRequest c) {
            streams.deleteStream(c);
        } else if (command instanceof PrepareObjectsRequest c) {
            return streams.prepareObjects(c);
        } else if (command instanceof CommitStreamSetObjectRequest c) {
            streams.commitStreamSetObject(c);
        } else if (command instanceof CommitStreamObjectRequest c) {
            streams.commitStreamObject(c);
        } else if (command instanceof ReplaceStreamRangeRequest c) {
            // Only ever decoded from an entry of level KEY_COMPACTION, which the finalized level admits.
            streams.replaceStreamRange(c);
        } else if (command instanceof GetObjectsToDelete c) {
            return streams.getObjectsToDelete(c.nowMs(), c.delayMs());
        } else if (command instanceof ObjectsDeleted c) {
            streams.objectsDeleted(c.objectIds());
        // Brokers.
        } else if (command instanceof RegisterBroker c) {
            BrokerInfo existing = cluster.broker(c.brokerId());
            if (existing != null && existing.incarnationId().equals(c.incarnationId())) {
                refuseIfTakenOver(existing.brokerId(), existing.brokerEpoch());
                refuseIfRemoving(existing.brokerId(), existing.brokerEpoch());
            }
            return cluster.register(c, events, index);
        } else if (command instanceof BrokerHeartbeat c) {
            refuseIfTakenOver(c.brokerId(), c.brokerEpoch());
            refuseIfRemoving(c.brokerId(), c.brokerEpoch());
            return cluster.heartbeat(c, events, index);
        } else if (command instanceof FenceBroker c) {
            cluster.fence(c, events, index);
        } else if (command instanceof DrainBroker c) {
            cluster.drain(c, events, index);
        } else if (command instanceof UnregisterBroker c) {
            cluster.unregister(c, events, index);
        // Topics.
        } else if (command instanceof CreateTopic c) {
            return cluster.createTopic(c, events, index);
        } else if (command instanceof DeleteTopic c) {
            cluster.deleteTopic(c.name(), events, index);
        } else if (command instanceof CreatePartitions c) {
            return cluster.createPartitions(c, events, index);
        } else if (command instanceof AlterTopicConfigs c) {
            return cluster.alterConfigs(c, events, index);
        } else if (command instanceof ReassignPartition c) {
            return cluster.reassign(c, events, index);
        } else if (command instanceof AllocateProducerIds c) {
            if (c.count() < 1 || c.count() > 1_000_000) {
                throw new ControllerException(ControllerException.Code.INVALID_REQUEST, "producer id block of "
                        + c.count() + " is outside [1, 1000000]");
            }
            long first = nextProducerId;
            nextProducerId += c.count();
            return first;
        // Feature levels.
        } else if (command instanceof ReportVoterFeatures c) {
            return features.report(c, cluster.brokers(), events, index);
        } else if (command instanceof UpdateFeatureLevel c) {
            return features.update(c, cluster.brokers(), events, index);
        // Key-value space.
        } else if (command instanceof PutKv c) {
            kv.put(c.key(), c.value().clone());
            publishSecurityEntry(c.key(), c.value(), events, index);
        } else if (command instanceof DeleteKv c) {
            if (kv.remove(c.key()) != null) {
                publishSecurityEntry(c.key(), null, events, index);
            }
        } else {
            throw new ControllerException(ControllerException.Code.INVALID_REQUEST, "not a command: "
                    + command.getClass().getSimpleName());
        }
        return null;
    }

    /**
     * Security entries travel on the change feed once the level has their event version; below it
     * they are stored (every build stores them alike) but watchers cannot be told, which is why
     * brokers do not write them then.
     */
    private void publishSecurityEntry(String key, byte[] value, Consumer<MetadataEvent> events, long index) {
        if (SecurityKeys.isSecurityKey(key) && features.finalizedLevel() >= FeatureLevel.SECURITY_METADATA) {
            events.accept(MetadataEvent.kvChanged(index, key, value));
        }
    }

    /** The security entries of the key-value space, as an image carries them (none below their level). */
    private java.util.SortedMap<String, byte[]> securityEntries() {
        java.util.SortedMap<String, byte[]> out = new TreeMap<>();
        if (features.finalizedLevel() >= FeatureLevel.SECURITY_METADATA) {
            for (Map.Entry<String, byte[]> e : kv.tailMap(SecurityKeys.PREFIX, true).entrySet()) {
                if (!SecurityKeys.isSecurityKey(e.getKey())) {
                    break;
                }
                out.put(e.getKey(), e.getValue().clone());
            }
        }
        return out;
    }

    /**
     * An incarnation an operator asked to remove (see {@link WalMarkers#REMOVING_PREFIX}) is not
     * heard from again: its session lapses and it is fenced as a dead broker is, so its WAL is
     * recovered only once its lease ran out too. Like {@link #refuseIfTakenOver}, not gated on a
     * feature level: the marker is written only by a build that has this check, and a voter of an
     * older build would still un-fence such a broker's heartbeat (remove brokers once every voter
     * runs this build; README, Upgrading).
     */
    private void refuseIfRemoving(int brokerId, long brokerEpoch) {
        BrokerInfo b = cluster.broker(brokerId);
        if (b == null || b.brokerEpoch() != brokerEpoch) {
            return;
        }
        if (WalMarkers.epoch(kv.get(WalMarkers.key(WalMarkers.REMOVING_PREFIX, brokerId))) >= brokerEpoch) {
            throw new ControllerException(ControllerException.Code.STALE_BROKER_EPOCH, "broker " + brokerId
                    + " epoch " + brokerEpoch + " is being removed (UnregisterBroker): it is fenced once its session "
                    + "lapses, and unregistered once its WAL is recovered (a new run registers as a new incarnation)");
        }
    }

    /**
     * A fenced incarnation whose WAL another broker is taking over (see {@link WalMarkers}) is not
     * unfenced again: were it, it would acknowledge into a WAL whose records were already read.
     */
    private void refuseIfTakenOver(int brokerId, long brokerEpoch) {
        BrokerInfo b = cluster.broker(brokerId);
        if (b == null || b.state() != BrokerState.FENCED || b.brokerEpoch() != brokerEpoch) {
            return;
        }
        if (WalMarkers.epoch(kv.get(WalMarkers.key(WalMarkers.TAKEOVER_PREFIX, brokerId))) >= brokerEpoch) {
            throw new ControllerException(ControllerException.Code.STALE_BROKER_EPOCH, "broker " + brokerId
                    + " epoch " + brokerEpoch + " was fenced and another broker took its WAL over; this run cannot "
                    + "come back (a new run registers as a new incarnation)");
        }
    }

    /** Answers a read-only query from the current state. */
    public Reply query(Object query, long appliedIndex) {
        try {
            return Reply.of(read(query, appliedIndex));
        } catch (ControllerException e) {
            return failure(e);
        } catch (StreamMetadataException e) {
            return failure(e);
        }
    }

    private Object read(Object query, long appliedIndex) {
        if (query instanceof Queries.GetObjects q) {
            return streams.getObjects(q.streamId(), q.startOffset(), q.endOffset(), q.limit());
        } else if (query instanceof Queries.GetStreamSetObjects q) {
            return streams.getStreamSetObjects(q.nodeId());
        } else if (query instanceof Queries.GetStreamObjects q) {
            return streams.getStreamObjects(q.streamId(), q.startOffset(), q.endOffset(), q.limit());
        } else if (query instanceof Queries.DescribeStream q) {
            return streams.describeStream(q.streamId());
        } else if (query instanceof Queries.DescribeCluster) {
            return image(appliedIndex);
        } else if (query instanceof Queries.DescribeFeatures) {
            return features.status();
        } else if (query instanceof Queries.GetTopics q) {
            if (q.names().isEmpty()) {
                return List.copyOf(cluster.topics());
            }
            List<TopicInfo> found = new ArrayList<>();
            new java.util.TreeSet<>(q.names()).forEach(name -> {
                TopicInfo t = cluster.topic(name);
                if (t != null) {
                    found.add(t);
                }
            });
            return found;
        } else if (query instanceof Queries.GetKv q) {
            byte[] value = kv.get(q.key());
            return value == null ? null : value.clone();
        } else if (query instanceof Queries.GetKvPrefix q) {
            Map<String, byte[]> found = new java.util.LinkedHashMap<>();
            for (Map.Entry<String, byte[]> e : kv.tailMap(q.prefix(), true).entrySet()) {
                if (!e.getKey().startsWith(q.prefix())) {
                    break;
                }
                found.put(e.getKey(), e.getValue().clone());
            }
            return found;
        }
        throw new ControllerException(ControllerException.Code.INVALID_REQUEST, "not a query: "
                + (query == null ? "null" : query.getClass().getSimpleName()));
    }

    /** Brokers and topics as of {@code appliedIndex}. */
    public ClusterImage image(long appliedIndex) {
        return new ClusterImage(appliedIndex, List.copyOf(cluster.brokers()), List.copyOf(cluster.topics()),
                features.finalizedLevel(), securityEntries());
    }

    /** The cluster's finalized feature level: log entries needing a higher one are refused. */
    public int finalizedFeatureLevel() {
        return features.finalizedLevel();
    }

    /** The broker's registration, or null. */
    public BrokerInfo broker(int brokerId) {
        return cluster.broker(brokerId);
    }

    /** Every registered broker, by id. */
    public List<BrokerInfo> brokers() {
        return List.copyOf(cluster.brokers());
    }

    private static Reply failure(ControllerException e) {
        return Reply.failed(new Failure(Failure.CONTROLLER, e.code().name(), withoutCode(e.getMessage(), e.code())));
    }

    private static Reply failure(StreamMetadataException e) {
        return Reply.failed(new Failure(Failure.STREAM, e.code().name(), withoutCode(e.getMessage(), e.code())));
    }

    /** Exception messages start with their code; the failure carries it separately. */
    private static String withoutCode(String message, Enum<?> code) {
        String prefix = code.name() + ": ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    // ---- snapshots ----

    /** The whole state as plain values. */
    public ControllerSnapshot snapshot() {
        List<ControllerSnapshot.Kv> entries = new ArrayList<>(kv.size());
        for (Map.Entry<String, byte[]> e : kv.entrySet()) {
            entries.add(new ControllerSnapshot.Kv(e.getKey(), e.getValue().clone()));
        }
        return new ControllerSnapshot(streams.snapshot(), cluster.nextBrokerEpoch(), List.copyOf(cluster.brokers()),
                List.copyOf(cluster.topics()), entries, clockMs, requests.lastSweepMs(), requests.snapshot(),
                nextProducerId, features.finalizedLevel(), features.voterFeatures(), features.bootstrapped());
    }

    /** Replaces this state with a snapshot's. */
    public void restore(ControllerSnapshot snapshot) {
        streams = StreamMetadataState.restore(snapshot.streams());
        features.restore(snapshot.finalizedFeatureLevel(), snapshot.voterFeatures(),
                snapshot.featureLevelBootstrapped());
        cluster = new ClusterState(streams, features);
        cluster.restore(snapshot.nextBrokerEpoch(), snapshot.brokers(), snapshot.topics());
        kv.clear();
        snapshot.kv().forEach(e -> kv.put(e.key(), e.value().clone()));
        clockMs = snapshot.clockMs();
        nextProducerId = snapshot.nextProducerId();
        requests.restore(snapshot.lastSessionSweepMs(), snapshot.sessions());
    }
}
