package io.aloft.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.DefaultConfiguration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a level change does to Log4j's loggers, on a Log4j context of the test's own (root at WARN
 * writing to one appender, and a logger {@code declared} at INFO as log4j2.xml would declare it): the
 * lines a changed logger now logs reach the root's appenders, and DELETE makes a logger follow its
 * parent again. The answers to requests are compared with Kafka's in BrokerLoggersOracleTest.
 */
class BrokerLoggersTest {
    private LoggerContext context;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private BrokerLoggers loggers;

    @BeforeEach
    void start() {
        context = new LoggerContext("broker-loggers-test");
        context.start(new DefaultConfiguration());
        Configuration config = context.getConfiguration();
        AbstractAppender appender = new AbstractAppender("lines", null, null, true, null) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getLoggerName() + " " + event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        config.addAppender(appender);
        config.getRootLogger().getAppenders().keySet().forEach(config.getRootLogger()::removeAppender);
        config.getRootLogger().addAppender(appender, null, null);
        config.getRootLogger().setLevel(Level.WARN);
        config.addLogger("declared", new LoggerConfig("declared", Level.INFO, true));
        context.updateLoggers();
        loggers = new BrokerLoggers(1, context);
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void set_classLogger_itsDebugLinesReachTheRootAppenders_untilDeleted() {
        Logger logger = context.getLogger("other.Thing");
        logger.debug("before");
        loggers.alter("1", List.of(new BrokerLoggers.Change("other.Thing", OpType.SET, "DEBUG")), false);
        logger.debug("while set");
        assertEquals("DEBUG", loggers.describe("1").get("other.Thing"));

        loggers.alter("1", List.of(new BrokerLoggers.Change("other.Thing", OpType.DELETE, null)), false);
        logger.debug("after");
        assertEquals(List.of("DEBUG other.Thing while set"), lines);
        assertEquals("WARN", loggers.describe("1").get("other.Thing"));
        assertFalse(context.getConfiguration().getLoggers().containsKey("other.Thing"),
                "the configuration made for the change is gone with it");
    }

    @Test
    void delete_declaredLogger_followsItsParent() {
        Logger child = context.getLogger("declared.Child");
        assertTrue(child.isInfoEnabled());
        loggers.alter("1", List.of(new BrokerLoggers.Change("declared", OpType.SET, "TRACE")), false);
        assertTrue(child.isTraceEnabled(), "a class logger under a declared one follows it");

        loggers.alter("1", List.of(new BrokerLoggers.Change("declared", OpType.DELETE, null)), false);
        assertFalse(child.isInfoEnabled(), "WARN, the root's level, once the declared logger has none of its own");
        assertEquals("WARN", loggers.describe("1").get("declared"));
        child.warn("still written");
        assertEquals(List.of("WARN declared.Child still written"), lines);
    }

    @Test
    void set_root_changesEveryLoggerWithoutItsOwnLevel() {
        Logger logger = context.getLogger("other.Thing");
        loggers.alter("1", List.of(new BrokerLoggers.Change(BrokerLoggers.ROOT, OpType.SET, "ERROR")), false);
        assertFalse(logger.isWarnEnabled());
        assertTrue(context.getLogger("declared.Child").isInfoEnabled(), "a declared level stays");
        assertEquals("ERROR", loggers.describe("1").get(BrokerLoggers.ROOT));
    }
}
