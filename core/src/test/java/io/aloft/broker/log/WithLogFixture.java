package io.aloft.broker.log;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the partition-log tests that each run on a fresh {@link LogFixture}: made in a new
 * temporary directory before each test and closed after it.
 *
 * <p>Confined to the thread that runs the test, as the fixture is.
 */
abstract class WithLogFixture {
    @TempDir
    Path dir;
    LogFixture fx;

    @BeforeEach
    void startFixture() throws Exception {
        fx = new LogFixture(dir);
    }

    @AfterEach
    void closeFixture() throws Exception {
        fx.close();
    }
}
