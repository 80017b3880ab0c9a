package io.aloft.broker.security.sasl;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A plain socket for the SASL tests: sends requests or raw frames exactly as given, reads responses
 * or raw frames, and tells whether the broker closed the connection. Not thread-safe.
 */
final class SaslWire implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    SaslWire(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends {@code request} at its builder's version without reading. */
    RequestHeader write(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "sasl-test", ++correlationId);
        ByteBuffer frame = request.serializeWithHeader(header);
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        writeFrame(bytes);
        return header;
    }

    @SuppressWarnings("unchecked")
    <T extends AbstractResponse> T send(AbstractRequest request) throws IOException {
        RequestHeader header = write(request);
        return (T) AbstractResponse.parseResponse(ByteBuffer.wrap(readFrame()), header);
    }

    void writeFrame(byte[] body) throws IOException {
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    byte[] readFrame() throws IOException {
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        return body;
    }

    /** Whether the broker closes the connection with nothing more sent (waits at most the socket timeout). */
    boolean closedWithoutData() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketException e) {
            return true; // reset by the broker
        } catch (EOFException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
