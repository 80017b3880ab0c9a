package io.aloft.controller.command;

import java.util.List;

/** See {@link io.aloft.stream.metadata.StreamMetadata#objectsDeleted}. */
public record ObjectsDeleted(List<Long> objectIds) {
    public ObjectsDeleted {
        objectIds = List.copyOf(objectIds);
    }
}
