package io.aloft.controller.codec;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Encodes and decodes <em>frames</em>: the bytes of one Raft log entry, query or reply, and the
 * body of a snapshot file. A frame is a small header (layout in the
 * {@linkplain io.aloft.controller.codec package description}) and one tagged value.
 *
 * <p>The header's {@code LEVEL} is the highest feature level any record version in the value
 * needs. A reader checks it before decoding: the state machine refuses an entry whose level is
 * above the cluster's finalized level without decoding it, so every voter, whatever its build,
 * decides the same. Decoding verifies the header did not understate the level.
 *
 * <p>Thread-safe and immutable.
 */
public final class ControllerCodec {
    /** First byte of every frame. Never 10, which started every value of the pre-release format. */
    public static final byte MAGIC = (byte) 0xAC;
    /** The frame layout this build writes and reads. */
    public static final byte FORMAT_VERSION = 1;

    static final int MAGIC_OFFSET = 0;
    static final int MAGIC_LENGTH = 1;
    static final int FORMAT_VERSION_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    static final int FORMAT_VERSION_LENGTH = 1;
    static final int LEVEL_OFFSET = FORMAT_VERSION_OFFSET + FORMAT_VERSION_LENGTH;
    static final int LEVEL_LENGTH = 2;
    static final int KNOWN_LEVEL_OFFSET = LEVEL_OFFSET + LEVEL_LENGTH;
    static final int KNOWN_LEVEL_LENGTH = 2;
    static final int VALUE_OFFSET = KNOWN_LEVEL_OFFSET + KNOWN_LEVEL_LENGTH;
    /** The first byte of a value of the pre-release reflective codec (its record tag). */
    static final byte PRE_RELEASE_RECORD_TAG = 10;

    /** Why data of the pre-release format is refused (log entries, replies and snapshots alike). */
    public static final String PRE_RELEASE_FORMAT = "written by a pre-release format (the reflective codec used "
            + "before controller record schemas), which this build cannot read: data dirs of that format are not "
            + "compatible; start the quorum on empty metadata.log.dir directories";

    private final SchemaRegistry registry;

    public ControllerCodec(SchemaRegistry registry) {
        this.registry = registry;
    }

    public SchemaRegistry registry() {
        return registry;
    }

    /**
     * A frame's header.
     *
     * @param level the highest feature level any record version in the value needs
     * @param knownLevel the cluster's finalized level as the writer knew it (a client: the level it
     *     encoded for; a voter: its applied state's level)
     */
    public record Header(int level, int knownLevel) {
    }

    /** A decoded frame: its header, its value, and the highest feature level met while decoding it. */
    public record Decoded(Header header, Object value, int levelMet) {
    }

    /**
     * Encodes {@code value} (a record or enum with a schema, or a built-in kind) into a new frame,
     * each record at the newest version {@code level} allows.
     *
     * @param level the feature level to write for, within the registry's supported range
     * @param knownLevel the finalized level the writer knows (see {@link Header#knownLevel})
     * @throws IllegalArgumentException when something in the value has no schema, or cannot be
     *     represented at {@code level}
     */
    public byte[] encode(Object value, int level, int knownLevel) {
        if (!registry.supported().contains(level)) {
            throw new IllegalArgumentException("feature level " + level + " is outside this build's "
                    + registry.supported());
        }
        if (knownLevel < 0 || knownLevel > 0xffff) {
            throw new IllegalArgumentException("known feature level " + knownLevel + " does not fit the header");
        }
        WireWriter out = new WireWriter(registry, level);
        out.put(MAGIC);
        out.put(FORMAT_VERSION);
        out.put((byte) 0); // LEVEL, filled in below
        out.put((byte) 0);
        out.put((byte) (knownLevel >>> 8));
        out.put((byte) knownLevel);
        TaggedValue.ANY.write(out, value);
        out.putShortAt(LEVEL_OFFSET, out.levelMet());
        return out.toByteArray();
    }

    /**
     * Reads a frame's header only (no decoding of the value).
     *
     * @throws MalformedDataException when the bytes are not a frame this build reads (the message
     *     says so plainly for the pre-release format)
     */
    public Header header(byte[] frame) {
        if (frame.length > 0 && frame[MAGIC_OFFSET] == PRE_RELEASE_RECORD_TAG) {
            throw new MalformedDataException(PRE_RELEASE_FORMAT);
        }
        if (frame.length < VALUE_OFFSET) {
            throw new MalformedDataException("a frame of " + frame.length + " bytes is shorter than its header");
        }
        if (frame[MAGIC_OFFSET] != MAGIC) {
            throw new MalformedDataException(String.format("not a controller frame (first byte 0x%02x)",
                    frame[MAGIC_OFFSET] & 0xff));
        }
        if (frame[FORMAT_VERSION_OFFSET] != FORMAT_VERSION) {
            throw new MalformedDataException("frame format version " + frame[FORMAT_VERSION_OFFSET]
                    + " is not one this build reads (" + FORMAT_VERSION + ")");
        }
        int level = ((frame[LEVEL_OFFSET] & 0xff) << 8) | (frame[LEVEL_OFFSET + 1] & 0xff);
        int known = ((frame[KNOWN_LEVEL_OFFSET] & 0xff) << 8) | (frame[KNOWN_LEVEL_OFFSET + 1] & 0xff);
        return new Header(level, known);
    }

    /**
     * Decodes a frame that must fill {@code frame} exactly.
     *
     * @throws MalformedDataException for anything but a valid frame of this build's schemas: bad
     *     header, a level above what this build supports, an unknown type id or version, a
     *     length beyond the bytes left, excessive nesting, a value a record's constructor refuses,
     *     trailing bytes, or a header level below a record version's
     */
    public Decoded decode(byte[] frame) {
        Header header = header(frame);
        if (header.level() > registry.supported().maxLevel()) {
            throw new MalformedDataException("the value needs feature level " + header.level()
                    + "; this build reads " + registry.supported());
        }
        WireReader in = new WireReader(ByteBuffer.wrap(frame, VALUE_OFFSET, frame.length - VALUE_OFFSET), registry);
        Object value;
        try {
            value = TaggedValue.ANY.read(in);
        } catch (BufferUnderflowException e) {
            throw new MalformedDataException("truncated input");
        }
        if (in.remaining() > 0) {
            throw new MalformedDataException(in.remaining() + " bytes left after the value");
        }
        if (in.levelMet() > header.level()) {
            throw new MalformedDataException("the header declares feature level " + header.level()
                    + " but the value holds a record version of level " + in.levelMet());
        }
        return new Decoded(header, value, in.levelMet());
    }

    /** Decodes a frame and checks its value's type (null is not an instance). */
    public <T> T decode(byte[] frame, Class<T> type) {
        Object value = decode(frame).value();
        if (!type.isInstance(value)) {
            throw new MalformedDataException("expected a " + type.getSimpleName() + ", got "
                    + (value == null ? "null" : value.getClass().getSimpleName()));
        }
        return type.cast(value);
    }

    /** The canonical text of {@code value} as written for {@code level} (see {@link CanonicalText}). */
    public String render(Object value, int level) {
        return CanonicalText.render(registry, value, level);
    }
}
