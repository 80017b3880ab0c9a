package io.aloft.compat;

import java.util.List;
import java.util.Map;

/**
 * A client program ready to run the scenario against one broker: the command line and the
 * environment it needs.
 *
 * <p>Immutable.
 */
record ClientCommand(List<String> command, Map<String, String> environment) {
    ClientCommand {
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
    }
}
