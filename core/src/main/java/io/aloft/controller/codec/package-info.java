/**
 * The controller's wire format: explicit, versioned schemas for everything written to the Raft
 * log, to replies and queries, and to snapshots (Kafka's generated metadata records are the
 * model). Nothing follows Java's declaration order or enum ordinals: the schemas
 * ({@link io.aloft.controller.codec.ControllerSchemas}) say which bytes mean what.
 *
 * <h2>Frame</h2>
 * Every log entry, query, reply and snapshot body is one frame ({@link
 * io.aloft.controller.codec.ControllerCodec}). Ratis guards log entries with its own checksum, the
 * snapshot file has a CRC32C of its own ({@code SnapshotFile}).
 * <pre>
 * OFFSET  LENGTH  FIELD
 * 0       1       MAGIC, 0xAC (never 10: every value of the pre-release reflective format started
 *                 with 10, its RECORD tag, and is refused with a message saying so)
 * 1       1       FORMAT_VERSION, 1: the layout of this header and of the encodings below
 * 2       2       LEVEL, unsigned big-endian: the highest feature level any record version (or
 *                 enum constant) in VALUE needs. A voter refuses an entry whose LEVEL is above the
 *                 cluster's finalized level before decoding it; decoding fails if VALUE holds more.
 * 4       2       KNOWN_LEVEL, unsigned big-endian: the finalized level as the writer knew it (a
 *                 client: the level it encoded for; a voter: its state's level, so clients learn it)
 * 6       ...     VALUE: one tagged value, filling the rest of the frame exactly
 * </pre>
 *
 * <h2>Values</h2>
 * Integers are zig-zag varints (7 bits a byte, least significant group first, high bit set on all
 * but the last; at most 10 bytes), so -1 takes one byte.
 * <pre>
 * int32, int64     varint (an int32 outside the int range is malformed)
 * boolean          1 byte, 0 or 1
 * string, bytes    varint length N, or -1 for null; then N bytes (strings: strictly valid UTF-8)
 * uuid             16 bytes: most significant long, then least significant, each big-endian
 * enum             varint code, from the enum's schema (an unknown code is malformed)
 * list&lt;T&gt;          varint count N (at most the bytes left), then N values of T
 * map&lt;K, V&gt;        varint count N, then N pairs of K and V in ascending key order (keys out of
 *                  order or repeated are malformed: a map has one encoding)
 * T? (nullable)    1 byte, 0 absent or 1 present, then T if present
 * record           varint VERSION, then the fields VERSION has, in schema order, each in its type's
 *                  form; a VERSION above the schema's current one is malformed
 * tagged (any)     varint TYPE_ID, then: for a record schema's id, the record (version and fields);
 *                  for an enum schema's id, the code; for a built-in kind, its body:
 *                    0 null (no body)     1 int64     2 int32     3 boolean     4 string (not null)
 *                    5 bytes (not null)   6 uuid      7 list of tagged values
 *                    8 map of string keys (ascending) to tagged values
 *                  ids 9 to 15 are reserved; record and enum ids start at 16 (ranges in
 *                  {@link io.aloft.controller.codec.ControllerSchemas})
 * </pre>
 * Tagged values appear only where the type varies: a frame's value, a request's command (records
 * only), a reply's value.
 *
 * <h2>Versions and feature levels</h2>
 * Each record version needs a cluster feature level ({@link io.aloft.controller.model.FeatureLevel}).
 * Writing for a level picks each record's newest version of at most that level; reading accepts
 * every version a schema declares, filling fields a version lacks with their defaults. An existing
 * version's fields never change: a change is a new version at a new level, with a golden fixture.
 *
 * <h2>Defensive decoding</h2>
 * Input may come from a corrupted file or a hostile client. Lengths are checked against the bytes
 * left before anything is allocated, nesting is bounded (32 levels), every value is built by its schema's
 * field type (so a {@code List<Long>} holds longs), and the record's constructor runs on decode, its
 * validation failures reported like any other malformed input: as
 * {@link io.aloft.controller.codec.MalformedDataException}, never another exception.
 */
package io.aloft.controller.codec;
