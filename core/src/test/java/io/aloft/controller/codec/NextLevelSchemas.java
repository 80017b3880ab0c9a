package io.aloft.controller.codec;

import io.aloft.controller.command.PutKv;
import io.aloft.controller.model.FeatureLevel;
import io.aloft.controller.model.FeatureRange;

/**
 * A registry as a future build might have it, for feature-level tests: production's schemas, and
 * a version 1 of {@code PutKv} that needs the level after this build's newest, {@link #LEVEL} (it
 * adds a {@code note} field, always null here). Test-only: production has no such version.
 */
public final class NextLevelSchemas {
    private NextLevelSchemas() {
    }

    public static final int LEVEL = FeatureLevel.LATEST + 1;

    public static final RecordSchema<PutKv> PUT_KV_V1 = RecordSchema.builder(74, "PutKv", PutKv.class)
            .version(0, 1)
            .version(1, LEVEL)
            .field("key", FieldType.STRING, PutKv::key)
            .field("value", FieldType.BYTES, PutKv::value)
            .field("note", FieldType.STRING, p -> (String) null).since(1).orElse(null)
            .build(v -> new PutKv(v.get("key"), v.get("value")));

    /** Supports levels 1 to {@link #LEVEL}. */
    public static final SchemaRegistry REGISTRY = ControllerSchemas.withAll(
            SchemaRegistry.builder(new FeatureRange(1, LEVEL))).replace(PUT_KV_V1).build();

    public static final ControllerCodec CODEC = new ControllerCodec(REGISTRY);
}
