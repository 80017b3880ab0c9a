package io.aloft.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One plain socket to a Kafka-protocol broker, sending requests exactly as built (any version, any
 * session id and epoch) and reading each answer before the next: for tests that send the same bytes
 * to Aloft and to Apache Kafka and compare what comes back. Not thread-safe.
 */
final class RawKafkaClient implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    RawKafkaClient(String bootstrap) throws IOException {
        int colon = bootstrap.lastIndexOf(':');
        socket = new Socket(bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1)));
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends {@code request} and waits for its response. */
    @SuppressWarnings("unchecked")
    <T extends AbstractResponse> T send(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client", ++correlationId);
        ByteBuffer frame = request.serializeWithHeader(header);
        out.writeInt(frame.remaining());
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return (T) AbstractResponse.parseResponse(ByteBuffer.wrap(body), header);
    }

    /** The highest version of {@code api} the broker serves. */
    short maxVersion(ApiKeys api) throws IOException {
        ApiVersionsResponse r = send(new ApiVersionsRequest.Builder().build());
        return r.data().apiKeys().find(api.id).maxVersion();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
