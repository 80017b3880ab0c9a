package io.aloft.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One plain socket to a Kafka-protocol broker, sending requests exactly as built (any version,
 * any session id and epoch) and reading each answer before the next: for tests that send the same
 * bytes to Aloft and to Apache Kafka and compare what comes back. Not thread-safe.
 */
final class RawKafkaConnection implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    RawKafkaConnection(String bootstrap) throws IOException {
        int colon = bootstrap.lastIndexOf(':');
        socket = new Socket(bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1)));
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends {@code request} (at its own version) and returns the parsed answer. */
    AbstractResponse send(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-test", ++correlationId);
        ByteBuffer bytes = request.serializeWithHeader(header);
        out.writeInt(bytes.remaining());
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        out.flush();
        byte[] response = new byte[in.readInt()];
        in.readFully(response);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
    }

    /** The highest version of {@code api} the broker serves. */
    short maxVersion(ApiKeys api) throws IOException {
        ApiVersionsResponse r = (ApiVersionsResponse) send(new ApiVersionsRequest.Builder().build());
        return r.data().apiKeys().find(api.id).maxVersion();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
