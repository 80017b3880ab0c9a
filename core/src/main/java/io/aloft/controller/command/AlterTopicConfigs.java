package io.aloft.controller.command;

import java.util.List;
import java.util.Map;

/** Sets and removes topic config overrides in one step. Replies with the topic. */
public record AlterTopicConfigs(String name, Map<String, String> set, List<String> delete) {
    public AlterTopicConfigs {
        set = Map.copyOf(set);
        delete = List.copyOf(delete);
    }
}
