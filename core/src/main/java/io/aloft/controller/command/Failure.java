package io.aloft.controller.command;

/**
 * A rejected command, in a form that survives serialization.
 *
 * @param domain {@link #STREAM} for a {@link io.aloft.stream.metadata.StreamMetadataException}
 *     code, {@link #CONTROLLER} for a {@link io.aloft.controller.ControllerException} code
 * @param code the code's enum name
 * @param message what was wrong, for people
 */
public record Failure(String domain, String code, String message) {
    public static final String STREAM = "stream";
    public static final String CONTROLLER = "controller";
}
