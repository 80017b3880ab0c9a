package io.aloft.compat;

import java.nio.file.Path;

/**
 * Where the harness finds its clients and writes its runs. The pom sets the system properties; the
 * defaults let a test run from the module directory without it (an IDE).
 *
 * @param moduleDir {@code compat/}: the scenario sources of every client family
 * @param clientsDir one directory of jars per kafka-clients version ({@code target/clients})
 * @param connectPluginsDir Kafka Connect's {@code plugin.path}: the connect-file jar ({@code target/connect/plugins})
 * @param streamsDir kafka-streams and what it needs at run time ({@code target/streams})
 * @param workDir compiled scenarios, client output and broker data ({@code target/compat-runs})
 * @param cacheDir what the setup scripts build ({@code ALOFT_CACHE_DIR}, default {@code ~/.cache/aloft})
 *
 * <p>Immutable.
 */
record CompatLayout(Path moduleDir, Path clientsDir, Path connectPluginsDir, Path streamsDir, Path workDir,
        Path cacheDir) {

    static CompatLayout fromSystemProperties() {
        Path module = Path.of(System.getProperty("aloft.compat.dir", ".")).toAbsolutePath().normalize();
        String cache = System.getenv("ALOFT_CACHE_DIR");
        return new CompatLayout(module,
                Path.of(System.getProperty("aloft.compat.clients.dir", module.resolve("target/clients").toString())),
                Path.of(System.getProperty("aloft.compat.connect.plugins.dir",
                        module.resolve("target/connect/plugins").toString())),
                Path.of(System.getProperty("aloft.compat.streams.dir", module.resolve("target/streams").toString())),
                Path.of(System.getProperty("aloft.compat.work.dir", module.resolve("target/compat-runs").toString())),
                cache != null && !cache.isBlank() ? Path.of(cache)
                        : Path.of(System.getProperty("user.home"), ".cache", "aloft"));
    }
}
