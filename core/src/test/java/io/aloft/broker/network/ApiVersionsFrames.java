package io.aloft.broker.network;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Valid ApiVersions v3 requests of an exact frame size (padded with an unknown tagged field), and
 * a raw socket to send them: requests any Kafka broker answers, whatever their size, for tests of
 * frame sizes and request memory. Stateless helpers.
 */
final class ApiVersionsFrames {
    static final short VERSION = 3;

    private ApiVersionsFrames() {
    }

    /**
     * A request frame whose size field (the bytes after it) is exactly {@code size}, size prefix
     * included. The padding is an unknown tagged field of the body, which the flexible versions
     * allow and brokers skip.
     */
    static byte[] frame(int size, int correlationId) {
        for (String clientId : new String[] {"pad", "pad1"}) {
            RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, VERSION, clientId, correlationId);
            int n = 0;
            for (int attempt = 0; attempt < 5 && n >= 0; attempt++) {
                ByteBuffer body = serialize(header, n);
                if (body.remaining() == size) {
                    byte[] out = new byte[4 + size];
                    ByteBuffer.wrap(out).putInt(size).put(body);
                    return out;
                }
                n += size - body.remaining();
            }
        }
        throw new IllegalArgumentException("no ApiVersions frame of exactly " + size + " bytes");
    }

    private static ByteBuffer serialize(RequestHeader header, int padding) {
        ApiVersionsRequestData body = new ApiVersionsRequestData().setClientSoftwareName("aloft-test")
                .setClientSoftwareVersion("1");
        body.unknownTaggedFields().add(new RawTaggedField(1000, new byte[padding]));
        return RequestUtils.serialize(header.data(), header.headerVersion(), body, VERSION);
    }

    /** A connection from {@code localAddress} (a loopback address, or null for any) to {@code port} on 127.0.0.1. */
    static Socket connect(int port, String localAddress) throws IOException {
        Socket s = new Socket();
        if (localAddress != null) {
            s.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        }
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setSoTimeout(15_000);
        s.setTcpNoDelay(true);
        return s;
    }

    static Socket connect(int port) throws IOException {
        return connect(port, null);
    }

    /** Writes {@code bytes[from, to)}. */
    static void write(Socket s, byte[] bytes, int from, int to) throws IOException {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.write(bytes, from, to - from);
        out.flush();
    }

    /**
     * Reads the response to the ApiVersions v3 request with {@code correlationId}: its error code, or
     * null if the broker closed the connection first.
     *
     * @throws SocketTimeoutException if nothing arrives within the socket's timeout
     */
    static Short readErrorCode(Socket s, int correlationId) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] response;
        try {
            response = new byte[in.readInt()];
            in.readFully(response);
        } catch (EOFException e) {
            return null;
        } catch (SocketException e) {
            return null; // reset by the broker
        }
        ByteBuffer b = ByteBuffer.wrap(response);
        ResponseHeader header = ResponseHeader.parse(b, (short) 0); // ApiVersions: always header v0
        if (header.correlationId() != correlationId) {
            throw new AssertionError("correlation id " + header.correlationId() + ", expected " + correlationId);
        }
        ApiVersionsResponseData data = new ApiVersionsResponseData();
        data.read(new ByteBufferAccessor(b), VERSION);
        return data.errorCode();
    }

    /** Sends an ApiVersions request of {@code size} bytes and reads its error code (null: closed instead). */
    static Short roundTrip(Socket s, int size, int correlationId) throws IOException {
        byte[] f = frame(size, correlationId);
        try {
            write(s, f, 0, f.length);
        } catch (SocketException e) {
            return null;
        }
        return readErrorCode(s, correlationId);
    }

    /** Whether the peer has closed {@code s}: a read sees end of stream or a reset within the socket's timeout. */
    static boolean closedByPeer(Socket s) throws IOException {
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }
}
