package io.aloft.stream.metadata;

/** A metadata command was rejected; nothing was changed. */
public class StreamMetadataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a command was rejected. Codes are stable: they will travel in replicated responses. */
    public enum Code {
        STREAM_NOT_FOUND,
        /** The command's epoch is not the stream's current one (a stale owner), or an open's is not higher. */
        FENCED,
        STREAM_NOT_OPEN,
        /** A committed range does not continue the stream where its committed data ends. */
        OFFSET_MISMATCH,
        OBJECT_NOT_FOUND,
        /** The object id is not in the state the command needs (e.g. committed twice). */
        OBJECT_STATE,
        INVALID_REQUEST
    }

    private final Code code;

    public StreamMetadataException(Code code, String message) {
        super(code + ": " + message);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
