package io.aloft.broker.conformance;

import java.util.Map;
import java.util.function.BiFunction;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One request shape of one API, as some client sends it, buildable at every version from
 * {@code fromVersion} to {@code toVersion} (those of the API's advertised range it applies to):
 * what the case sends and records, given a session on a target.
 *
 * <p>Immutable.
 */
record Shape(ApiKeys api, String name, short fromVersion, short toVersion, Script script, String noOracleReason,
        Map<String, String> expected) {

    /** What a case does on one target at one version: requests sent through the session. */
    @FunctionalInterface
    interface Script {
        void run(Session session, short version) throws Exception;
    }

    Shape(ApiKeys api, String name, short fromVersion, short toVersion, Script script) {
        this(api, name, fromVersion, toVersion, script, null, null);
    }

    /**
     * This shape with a fixed expected transcript instead of Kafka's, for requests Kafka itself
     * mishandles (so the oracle cannot be asked), with the reason.
     */
    Shape withoutOracle(String reason, Map<String, String> expectedTranscript) {
        return new Shape(api, name, fromVersion, toVersion, script, reason, Map.copyOf(expectedTranscript));
    }

    /** A shape of one request at every version of the API. */
    static Shape of(ApiKeys api, String name, BiFunction<Target, Short, ApiMessage> request) {
        return of(api, name, api.oldestVersion(), Short.MAX_VALUE, request);
    }

    /** A shape of one request at the versions from {@code from} to {@code to}. */
    static Shape of(ApiKeys api, String name, int from, int to, BiFunction<Target, Short, ApiMessage> request) {
        return new Shape(api, name, (short) from, (short) to,
                (s, v) -> s.ask("", api, v, request.apply(s.target, v)));
    }

    /** A shape whose script sends several requests (setup steps, or a protocol flow). */
    static Shape script(ApiKeys api, String name, int from, int to, Script script) {
        return new Shape(api, name, (short) from, (short) to, script);
    }

    boolean covers(short version) {
        return version >= fromVersion && version <= toVersion;
    }

    /** "API shape", how known differences are named. */
    String id() {
        return api.name + " " + name;
    }
}
