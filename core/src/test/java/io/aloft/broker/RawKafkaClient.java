package io.aloft.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One connection sending hand-built requests at exact versions and reading their responses, for
 * comparing a broker's answers with Apache Kafka's. Not thread-safe.
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
