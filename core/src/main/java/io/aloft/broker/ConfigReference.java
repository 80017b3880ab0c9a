package io.aloft.broker;

import io.aloft.config.ConfigDefinition;
import io.aloft.config.ConfigDocs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The README's configuration tables, rendered from the definitions ({@link ServerConfig#DOCUMENTED}):
 * each table sits between {@code <!-- config:NAME -->} and {@code <!-- /config:NAME -->}, and
 * {@value #COMMAND} rewrites them after a key changes. A test fails while the README differs.
 * Stateless.
 */
public final class ConfigReference {
    /** The command that regenerates the tables. */
    public static final String COMMAND = "scripts/config-docs.sh";

    private ConfigReference() {
    }

    /**
     * {@code document} with every documented definition's table rendered between its markers.
     *
     * @throws IllegalArgumentException if a definition's markers are missing or repeated
     */
    public static String render(String document) {
        String out = document;
        for (ConfigDefinition definition : ServerConfig.DOCUMENTED) {
            out = ConfigDocs.replaceSection(out, definition.name(), ConfigDocs.markdownTable(definition));
        }
        return out;
    }

    /** {@code ConfigReference [README.md]}: rewrites the file's tables in place. */
    public static void main(String[] args) throws IOException {
        Path readme = Path.of(args.length > 0 ? args[0] : "README.md");
        String before = Files.readString(readme, StandardCharsets.UTF_8);
        String after = render(before);
        if (after.equals(before)) {
            System.out.println(readme + ": configuration tables already match the definitions");
        } else {
            Files.writeString(readme, after, StandardCharsets.UTF_8);
            System.out.println(readme + ": configuration tables rewritten from the definitions");
        }
    }
}
