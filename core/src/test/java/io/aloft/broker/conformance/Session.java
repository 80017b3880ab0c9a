package io.aloft.broker.conformance;

import java.io.IOException;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One run of a case against one target: a fresh connection, and the transcript of what each
 * request got (every error code by its place in the response, or that the connection was closed).
 * Two targets conform on a case when their transcripts are equal.
 *
 * <p>Not thread-safe: one test thread uses it.
 */
final class Session implements AutoCloseable {
    final Target target;
    private RawConnection connection;
    private final SortedMap<String, String> transcript = new TreeMap<>();

    Session(Target target) throws IOException {
        this.target = target;
        this.connection = RawConnection.open(target.bootstrap);
    }

    /**
     * Sends one request and records its error codes under {@code step}; returns the response body,
     * or null if the broker closed the connection (recorded as such; the next request reconnects).
     */
    ApiMessage ask(String step, ApiKeys api, short version, ApiMessage body) throws IOException {
        RawConnection.Answer answer = connection.send(api, version, body);
        return record(step, answer);
    }

    /** Sends a request that gets no response (Produce with acks=0). */
    void askOneWay(ApiKeys api, short version, ApiMessage body) throws IOException {
        connection.sendOneWay(api, version, body);
    }

    /** As {@link #ask}, for a request already encoded by the case (header and body). */
    ApiMessage askFrame(String step, ApiKeys api, short version, java.util.function.IntFunction<java.nio.ByteBuffer>
            frameForCorrelationId) throws IOException {
        int id = connection.nextCorrelationId();
        return record(step, connection.sendFrame(api, version, id, frameForCorrelationId.apply(id)));
    }

    private ApiMessage record(String step, RawConnection.Answer answer) throws IOException {
        String prefix = step.isEmpty() ? "" : step + ": ";
        if (answer.closed()) {
            transcript.put(prefix + "connection", "CLOSED");
            connection.close();
            connection = RawConnection.open(target.bootstrap);
            return null;
        }
        ErrorCodes.of(answer.body(), target::topicName).forEach((path, error) -> transcript.put(prefix + path, error));
        return answer.body();
    }

    /** Records a fact a case checked itself (e.g. a count), compared like the error codes. */
    void note(String step, String what, Object value) {
        transcript.put(step + ": " + what, String.valueOf(value));
    }

    Map<String, String> transcript() {
        return transcript;
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
