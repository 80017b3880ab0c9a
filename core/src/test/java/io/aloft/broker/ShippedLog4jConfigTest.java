package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.xml.XmlConfiguration;
import org.junit.jupiter.api.Test;

/**
 * config/log4j2.xml, which bin/aloft-server.sh starts brokers with, parses and declares the
 * per-area loggers operators set at run time (kafka-configs --entity-type broker-loggers), each
 * following io.aloft's level until set.
 */
class ShippedLog4jConfigTest {

    @Test
    void parses_andDeclaresTheAreaLoggers() throws Exception {
        Path file = ConfigReferenceTest.projectRoot().resolve("config/log4j2.xml");
        LoggerContext context = new LoggerContext("shipped-config-test");
        try {
            Configuration config = new XmlConfiguration(context, ConfigurationSource.fromUri(file.toUri()));
            config.initialize();
            assertTrue(config.getLoggers().containsKey("io.aloft"), "io.aloft is configured: " + config.getLoggers());
            assertEquals(Level.INFO, config.getLoggerConfig("io.aloft").getLevel());
            for (String area : new String[] {"io.aloft.broker", "io.aloft.broker.network", "io.aloft.stream",
                    "io.aloft.wal", "io.aloft.controller"}) {
                assertEquals(area, config.getLoggerConfig(area).getName(), area + " is declared");
                assertEquals(Level.INFO, config.getLoggerConfig(area).getLevel(), area + " follows io.aloft");
            }
        } finally {
            context.stop();
        }
    }
}
