package io.aloft.broker.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * One client connection speaking the Kafka protocol byte by byte: a request is encoded with
 * kafka-clients' message classes at the version asked for (with the request header of that
 * version), and the answer is read within {@link #READ_TIMEOUT_MS}, parsed with the response header
 * and body of the same version, and checked to be consumed exactly. Nothing negotiates versions or
 * retries, so what the broker sends is what the test sees.
 *
 * <p>Not thread-safe: one test thread uses it.
 */
public final class RawConnection implements AutoCloseable {
    /** How long a response may take; a broker that lets a request hang fails the test after this. */
    public static final int READ_TIMEOUT_MS = 15_000;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int correlationId = 1000;
    private boolean closed;

    /**
     * What a request got.
     *
     * @param body the parsed response body, or null if the broker closed the connection instead
     */
    public record Answer(ApiMessage body) {
        public boolean closed() {
            return body == null;
        }
    }

    private RawConnection(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(READ_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Connects to {@code host:port}. */
    public static RawConnection open(String bootstrap) throws IOException {
        int colon = bootstrap.lastIndexOf(':');
        return new RawConnection(new Socket(bootstrap.substring(0, colon),
                Integer.parseInt(bootstrap.substring(colon + 1))));
    }

    /** Whether the broker closed this connection (every later request is refused). */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Sends {@code body} as {@code api} at {@code version} and returns the answer: the response
     * decoded at that version, or "closed" if the broker closed the connection.
     *
     * @throws AssertionError if nothing arrives within {@link #READ_TIMEOUT_MS}, or the response does
     *     not decode at the request's version, or carries another correlation id
     */
    public Answer send(ApiKeys api, short version, ApiMessage body) throws IOException {
        int id;
        try {
            id = write(api, version, body);
        } catch (SocketException e) {
            closed = true; // closed by the broker before this request went out
            return new Answer(null);
        }
        return read(api, version, id);
    }

    /**
     * Writes a request without waiting for its answer (to pipeline several, as clients do) and
     * returns its correlation id for {@link #read}.
     */
    public int write(ApiKeys api, short version, ApiMessage body) throws IOException {
        int id = correlationId++;
        RequestHeader header = new RequestHeader(api, version, "aloft-conformance", id);
        ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), body, version);
        out.writeInt(frame.remaining());
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
        return id;
    }

    /** Sends a request that gets no response (Produce with acks=0). */
    public void sendOneWay(ApiKeys api, short version, ApiMessage body) throws IOException {
        write(api, version, body);
    }

    /**
     * Sends a request already encoded (header and body, without the size prefix), for versions
     * kafka-clients no longer writes, and reads the answer as {@link #send} does.
     */
    public Answer sendFrame(ApiKeys api, short version, int expectedCorrelationId, ByteBuffer frame)
            throws IOException {
        if (closed) {
            throw new IllegalStateException("connection already closed by the broker");
        }
        try {
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
        } catch (SocketException e) {
            closed = true;
            return new Answer(null);
        }
        return read(api, version, expectedCorrelationId);
    }

    /**
     * Reads the next answer, which must be the response to the request with
     * {@code expectedCorrelationId}, as {@link #send} does.
     */
    public Answer read(ApiKeys api, short version, int expectedCorrelationId) throws IOException {
        byte[] response;
        try {
            int size = in.readInt();
            response = new byte[size];
            in.readFully(response);
        } catch (EOFException | SocketException e) {
            closed = true;
            return new Answer(null);
        } catch (SocketTimeoutException e) {
            throw new AssertionError(api + " v" + version + ": no response within " + READ_TIMEOUT_MS
                    + " ms (correlation id " + expectedCorrelationId + ")");
        }
        ByteBuffer buffer = ByteBuffer.wrap(response);
        ApiMessage body;
        try {
            ResponseHeader header = ResponseHeader.parse(buffer, api.responseHeaderVersion(version));
            if (header.correlationId() != expectedCorrelationId) {
                throw new AssertionError(api + " v" + version + ": response carries correlation id "
                        + header.correlationId() + ", not " + expectedCorrelationId);
            }
            body = AbstractResponse.parseResponse(api, new ByteBufferAccessor(buffer), version).data();
        } catch (RuntimeException e) {
            throw new AssertionError(api + " v" + version + ": the response does not decode at v" + version, e);
        }
        if (buffer.hasRemaining()) {
            throw new AssertionError(api + " v" + version + ": " + buffer.remaining()
                    + " bytes left after decoding the response at v" + version);
        }
        return new Answer(body);
    }

    /** The next correlation id {@link #send} would use, for {@link #sendFrame} callers. */
    public int nextCorrelationId() {
        return correlationId++;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
