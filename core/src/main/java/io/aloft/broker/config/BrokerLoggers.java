package io.aloft.broker.config;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.LogLevelConfig;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.slf4j.LoggerFactory;

/**
 * The log levels of this process's Log4j 2 loggers as Kafka's {@code BROKER_LOGGER} config resource
 * (what {@code kafka-configs --entity-type broker-loggers} shows and changes), named by this broker's
 * id. As in Kafka 4.3.1:
 * <ul>
 * <li>the loggers are every logger of the configuration (log4j2.xml, and those set here), every
 * logger some class has asked for, each with its effective level, and {@value #ROOT};
 * <li>SET gives a logger a level, one of {@link LogLevelConfig#VALID_LOG_LEVELS} in capitals (else
 * INVALID_CONFIG); DELETE drops a logger's own level so it follows its parent again (INVALID_REQUEST
 * for the root); APPEND and SUBTRACT are INVALID_REQUEST; a logger that does not exist is
 * INVALID_CONFIG; a resource name other than this broker's id is INVALID_REQUEST;
 * <li>every change of a request is checked before any applies, and none applies with validateOnly;
 * <li>levels set here live in memory only: a restart (or a reload of log4j2.xml) brings back the
 * file's.
 * </ul>
 * So a package is a logger only if log4j2.xml declares it ({@code io.aloft} in the shipped one);
 * {@code kafka-configs} itself refuses any name its describe does not list.
 *
 * An operation code Kafka does not define is INVALID_REQUEST here (Kafka 4.3.1 answers
 * UNKNOWN_SERVER_ERROR).
 *
 * <p>Thread-safe: changes are serialized on this object; a thread logging meanwhile sees a logger's
 * old level or its new one. If the process does not log through Log4j 2's core, there are no loggers
 * to show or change.
 */
public final class BrokerLoggers {
    private static final org.slf4j.Logger log = LoggerFactory.getLogger(BrokerLoggers.class);

    /** Kafka's name for the root logger in this resource. */
    public static final String ROOT = "root";

    /**
     * One change of a request.
     *
     * @param op {@code null} for an operation code Kafka does not define
     * @param level the new level for SET; ignored otherwise
     */
    public record Change(String logger, OpType op, String level) {
    }

    private final int brokerId;
    private final LoggerContext context;
    /** Loggers this class gave a configuration of their own, which DELETE removes again; guarded by this. */
    private final Set<String> created = new HashSet<>();

    /** The loggers of the Log4j context this class logs to. */
    public BrokerLoggers(int brokerId) {
        this(brokerId, LogManager.getContext(false) instanceof LoggerContext c ? c : null);
    }

    BrokerLoggers(int brokerId, LoggerContext context) {
        this.brokerId = brokerId;
        this.context = context;
    }

    /** Every logger and its level, the root as {@value #ROOT}, after checking the resource names this broker. */
    public SortedMap<String, String> describe(String resourceName) {
        requireThisBroker(resourceName);
        return levels();
    }

    /**
     * Checks every change, then applies them in order unless {@code validateOnly}.
     *
     * @throws InvalidRequestException for another broker, a DELETE of the root, an operation other
     *     than SET and DELETE, a SET without a value or a logger named twice
     * @throws InvalidConfigurationException for a logger that does not exist or a level Kafka does
     *     not accept
     */
    public synchronized void alter(String resourceName, List<Change> changes, boolean validateOnly) {
        requireThisBroker(resourceName);
        Set<String> named = new HashSet<>();
        for (Change c : changes) {
            if (!named.add(c.logger())) {
                throw new InvalidRequestException("Logger " + c.logger() + " is named more than once");
            }
        }
        SortedMap<String, String> levels = levels();
        for (Change c : changes) {
            check(c, levels);
        }
        if (validateOnly) {
            return;
        }
        for (Change c : changes) {
            Level level = c.op() == OpType.SET ? Level.getLevel(c.level()) : null;
            setLevel(c.logger(), level);
            log.info("Log level of {} {} by request", c.logger(), level == null ? "unset (it follows its parent)"
                    : "set to " + level);
        }
    }

    private void check(Change c, SortedMap<String, String> levels) {
        if (c.op() != OpType.SET && c.op() != OpType.DELETE) {
            throw new InvalidRequestException((c.op() == null ? "An unknown" : c.op().toString())
                    + " operation is not allowed for the BROKER_LOGGER resource");
        }
        if (c.op() == OpType.SET && c.level() == null) {
            throw new InvalidRequestException("No level given for logger " + c.logger());
        }
        if (!levels.containsKey(c.logger())) {
            throw new InvalidConfigurationException("Logger " + c.logger() + " does not exist");
        }
        if (c.op() == OpType.DELETE && c.logger().equals(ROOT)) {
            throw new InvalidRequestException("The root logger's level can be set but not removed");
        }
        if (c.op() == OpType.SET && !LogLevelConfig.VALID_LOG_LEVELS.contains(c.level())) {
            throw new InvalidConfigurationException("Cannot set the level of " + c.logger() + " to " + c.level()
                    + ": valid levels are " + new TreeSet<>(LogLevelConfig.VALID_LOG_LEVELS));
        }
    }

    /** As Kafka: configured loggers at their level, then every logger at its effective level, then the root. */
    private SortedMap<String, String> levels() {
        SortedMap<String, String> out = new TreeMap<>();
        if (context == null) {
            return out;
        }
        Configuration config = context.getConfiguration();
        for (Map.Entry<String, LoggerConfig> e : config.getLoggers().entrySet()) {
            if (!e.getKey().isEmpty()) {
                out.put(e.getKey(), e.getValue().getLevel().toString());
            }
        }
        for (Logger l : context.getLoggers()) {
            if (!l.getName().isEmpty()) {
                out.put(l.getName(), l.getLevel().toString());
            }
        }
        out.put(ROOT, context.getRootLogger().getLevel().toString());
        return out;
    }

    /**
     * Gives a logger its own level, or ({@code level} null) lets it follow its parent's. A logger
     * without a configuration of its own gets one (additive, so its events still reach the parents'
     * appenders), removed again on DELETE; one from log4j2.xml keeps its appenders and only changes
     * level. Called with this object's lock held.
     */
    private void setLevel(String name, Level level) {
        Configuration config = context.getConfiguration();
        if (name.equals(ROOT)) {
            config.getRootLogger().setLevel(level);
        } else if (level == null && created.remove(name)) {
            config.removeLogger(name);
        } else {
            LoggerConfig own = config.getLoggerConfig(name);
            if (own.getName().equals(name)) {
                own.setLevel(level);
            } else if (level != null) {
                config.addLogger(name, new LoggerConfig(name, level, true));
                created.add(name);
            }
        }
        context.updateLoggers();
    }

    private void requireThisBroker(String resourceName) {
        if (resourceName == null || resourceName.isEmpty()) {
            throw new InvalidRequestException("Broker id must not be empty");
        }
        int id;
        try {
            id = Integer.parseInt(resourceName);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("Broker id must be an integer, but it is: " + resourceName);
        }
        if (id != brokerId) {
            throw new InvalidRequestException("This is broker " + brokerId + ", not " + resourceName);
        }
    }
}
