package io.aloft.omb.compare;

import io.aloft.servers.BenchServer;
import java.io.IOException;

/** Makes a fresh, not yet started server for one run. Called from one thread. */
@FunctionalInterface
public interface ServerFactory {
    BenchServer create(SystemKind kind) throws IOException;
}
