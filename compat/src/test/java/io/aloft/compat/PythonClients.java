package io.aloft.compat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * librdkafka through confluent-kafka (Python), whose wheels bundle librdkafka: one virtual
 * environment per pinned version, built by {@code scripts/python-clients.sh} under
 * {@code <cache>/python-clients/confluent-kafka-<version>} and marked complete by a file
 * {@code .installed} written last. The scenarios are {@code compat/python/scenario.py},
 * {@code compat/python/transactions.py} and {@code compat/python/secure.py}.
 *
 * <p>Immutable.
 */
final class PythonClients {
    static final String SETUP_SCRIPT = "scripts/python-clients.sh";

    private final CompatLayout layout;

    PythonClients(CompatLayout layout) {
        this.layout = layout;
    }

    /** @throws IllegalStateException naming the setup script when that version is not installed */
    ClientCommand command(String confluentKafkaVersion, Scenario s) {
        return command(confluentKafkaVersion, s, "classic");
    }

    /**
     * @param groupProtocol the consumer's group.protocol: classic, or consumer (KIP-848)
     * @throws IllegalStateException naming the setup script when that version is not installed
     */
    ClientCommand command(String confluentKafkaVersion, Scenario s, String groupProtocol) {
        return new ClientCommand(List.of(python(confluentKafkaVersion).toString(), "-u", layout.moduleDir()
                        .resolve("python/scenario.py")
                        .toString(), "--bootstrap", s.bootstrap(), "--topic", s.topic(), "--group", s.group(),
                        "--partitions", Integer.toString(s.partitions()), "--records", Integer.toString(s.records()),
                        "--timeout", Long.toString(s.clientTimeout().toSeconds()), "--group-protocol", groupProtocol),
                Map.of("PYTHONDONTWRITEBYTECODE", "1"));
    }

    /**
     * The transactions scenario ({@code compat/python/transactions.py}): a transactional producer's
     * commits, an abort and its fencing, read back by read_committed and read_uncommitted consumers;
     * {@code s.records()} is the records per partition per transaction.
     *
     * @throws IllegalStateException naming the setup script when that version is not installed
     */
    ClientCommand transactions(String confluentKafkaVersion, Scenario s) {
        return new ClientCommand(List.of(python(confluentKafkaVersion).toString(), "-u", layout.moduleDir()
                        .resolve("python/transactions.py").toString(), "--bootstrap", s.bootstrap(), "--topic",
                        s.topic(), "--partitions", Integer.toString(s.partitions()), "--records",
                        Integer.toString(s.records()), "--timeout",
                        Long.toString(s.clientTimeout().toSeconds())),
                Map.of("PYTHONDONTWRITEBYTECODE", "1"));
    }

    /**
     * The secured-listener scenario ({@code compat/python/secure.py}) with {@code arguments} (listener,
     * protocol, credentials, expectation: see the script).
     *
     * @throws IllegalStateException naming the setup script when that version is not installed
     */
    ClientCommand secure(String confluentKafkaVersion, List<String> arguments) {
        List<String> command = new java.util.ArrayList<>(List.of(python(confluentKafkaVersion).toString(), "-u",
                layout.moduleDir().resolve("python/secure.py").toString()));
        command.addAll(arguments);
        return new ClientCommand(command, Map.of("PYTHONDONTWRITEBYTECODE", "1"));
    }

    /** The venv's python of that confluent-kafka version. */
    private Path python(String confluentKafkaVersion) {
        Path venv = layout.cacheDir().resolve("python-clients").resolve("confluent-kafka-" + confluentKafkaVersion);
        Path python = venv.resolve("bin/python");
        if (!Files.exists(venv.resolve(".installed")) || !Files.isExecutable(python)) {
            throw new IllegalStateException("confluent-kafka " + confluentKafkaVersion + " is not installed in " + venv
                    + "; run `bash " + SETUP_SCRIPT + "` (scripts/test.sh does; it needs python3 with venv and pip"
                    + " and access to PyPI the first time)");
        }
        return python;
    }
}
