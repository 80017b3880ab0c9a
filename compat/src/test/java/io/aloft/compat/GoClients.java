package io.aloft.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The Go clients (franz-go with kadm, and Sarama) in one program, {@code compat/go}, built by
 * {@code scripts/go-clients.sh} into {@code <cache>/bin/aloft-compat-go-<hash>}. The hash covers
 * {@code go.mod}, {@code go.sum} and the {@code .go} files (in that order, the sources sorted by
 * name), so a binary built from other sources is never run: this class computes the same hash.
 *
 * <p>Immutable.
 */
final class GoClients {
    static final String SETUP_SCRIPT = "scripts/go-clients.sh";

    private final CompatLayout layout;

    GoClients(CompatLayout layout) {
        this.layout = layout;
    }

    /** franz-go at its defaults. */
    ClientCommand franz(Scenario s) {
        return command(s, List.of("-client", "franz"));
    }

    /**
     * Sarama with {@code config.Version} set to {@code version}: "default" (Sarama's
     * {@code DefaultVersion}), "max" ({@code MaxVersion}) or a Kafka version such as "0.11.0.0".
     */
    ClientCommand sarama(String version, Scenario s) {
        return command(s, List.of("-client", "sarama", "-sarama-version", version));
    }

    /**
     * franz-go's transactional producer in the transactions scenario ({@code compat/go/franztxn.go});
     * {@code s.records()} is the records per partition per transaction.
     */
    ClientCommand franzTransactions(Scenario s) {
        return command(s, List.of("-client", "franz-txn"));
    }

    private ClientCommand command(Scenario s, List<String> clientArgs) {
        Path binary = binary();
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("the Go clients are not built for the current sources of compat/go (no "
                    + binary + "); run `bash " + SETUP_SCRIPT + "` (scripts/test.sh does; it needs the Go toolchain"
                    + " and the Go module proxy the first time)");
        }
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        command.addAll(clientArgs);
        command.addAll(List.of("-bootstrap", s.bootstrap(), "-topic", s.topic(), "-group", s.group(), "-partitions",
                Integer.toString(s.partitions()), "-records", Integer.toString(s.records()), "-timeout",
                s.clientTimeout().toSeconds() + "s"));
        return new ClientCommand(command, Map.of());
    }

    Path binary() {
        return layout.cacheDir().resolve("bin").resolve("aloft-compat-go-" + sourceHash(layout.moduleDir().resolve("go")));
    }

    /** The first 16 hex digits of SHA-256 over go.mod, go.sum and the sorted *.go files, concatenated. */
    static String sourceHash(Path goDir) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            List<Path> files = new ArrayList<>(List.of(goDir.resolve("go.mod"), goDir.resolve("go.sum")));
            try (Stream<Path> list = Files.list(goDir)) {
                list.filter(f -> f.getFileName().toString().endsWith(".go"))
                        .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
                        .forEach(files::add);
            }
            for (Path f : files) {
                sha.update(Files.readAllBytes(f));
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the Go sources in " + goDir, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
