package io.aloft.controller.codec;

import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;

/**
 * The controller's schemas: every type written to the Raft log, to replies and queries, and to
 * snapshots. The controller owns them, s3stream's records included (s3stream knows nothing of
 * this codec).
 *
 * <p>Type ids, by range (an id is never reused, even after its type is retired; the ledger of
 * ids is {@code core/src/test/resources/golden/controller/type-ids.txt}):
 * <pre>
 *   0-15     built-in kinds of tagged values ({@link TaggedValue})
 *   16-31    envelope: Request, Reply, Failure, RequestBatch       ({@link EnvelopeSchemas})
 *   32-47    stream and object commands                            ({@link StreamSchemas})
 *   48-63    stream and object values                              ({@link StreamSchemas})
 *   64-95    cluster commands: brokers, topics, kv, features        ({@link ClusterSchemas})
 *   96-127   cluster values                                        ({@link ClusterSchemas})
 *   128-159  queries                                               ({@link EnvelopeSchemas})
 *   160-175  snapshot                                              ({@link EnvelopeSchemas})
 * </pre>
 *
 * <p>Adding a record version: declare it in the type's schema with a new feature level (add the
 * level to {@link FeatureLevel}), never change the fields of an existing version, and add its
 * golden fixture (see the fixture folder's README).
 *
 * <p>Immutable constants.
 */
public final class ControllerSchemas {
    private ControllerSchemas() {
    }

    /**
     * Every schema of this build, which supports feature levels {@link FeatureLevel#MIN_SUPPORTED} to
     * {@link FeatureLevel#LATEST}.
     */
    public static final SchemaRegistry REGISTRY = withAll(SchemaRegistry.builder(
            new FeatureRange(FeatureLevel.MIN_SUPPORTED, FeatureLevel.LATEST))).build();

    /** The codec over {@link #REGISTRY}. */
    public static final ControllerCodec CODEC = new ControllerCodec(REGISTRY);

    /** Adds every production schema to {@code registry} (tests then replace some with versions of their own). */
    public static SchemaRegistry.Builder withAll(SchemaRegistry.Builder registry) {
        EnvelopeSchemas.addTo(registry);
        StreamSchemas.addTo(registry);
        ClusterSchemas.addTo(registry);
        return registry;
    }
}
