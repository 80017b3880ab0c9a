package io.aloft.broker.security.acl;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * One socket to a SASL_PLAINTEXT listener, authenticated with PLAIN as one user, that sends requests
 * exactly as built (at the highest version both the builder and the broker know) and reads each
 * answer before the next: the ACL tests' way of asking "what does this principal get for this
 * request". Not thread-safe.
 */
final class AclWire implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final ApiVersionsResponse versions;
    private int correlationId;

    /** A PLAINTEXT connection (User:ANONYMOUS) to {@code host:port}. */
    AclWire(String bootstrap) throws IOException {
        int colon = bootstrap.lastIndexOf(':');
        socket = new Socket(bootstrap.substring(0, colon), Integer.parseInt(bootstrap.substring(colon + 1)));
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
        versions = send(new ApiVersionsRequest.Builder().build((short) 3));
    }

    AclWire(int port, String user, String password) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
        SaslHandshakeResponse handshake = send(new SaslHandshakeRequest.Builder(
                new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1));
        if (handshake.error() != Errors.NONE) {
            throw new IOException("handshake: " + handshake.error());
        }
        byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
        SaslAuthenticateResponse auth = send(new SaslAuthenticateRequest.Builder(
                new SaslAuthenticateRequestData().setAuthBytes(token)).build((short) 2));
        if (auth.error() != Errors.NONE) {
            throw new IOException("authentication as " + user + ": " + auth.error());
        }
        versions = send(new ApiVersionsRequest.Builder().build((short) 3));
    }

    /** The broker's highest version of {@code api}, or -1 if it does not advertise it. */
    short maxVersion(ApiKeys api) {
        var v = versions.data().apiKeys().find(api.id);
        return v == null ? -1 : v.maxVersion();
    }

    /** Builds {@code builder}'s request at the highest version it and the broker share, sends it, and answers. */
    <T extends AbstractResponse> T send(AbstractRequest.Builder<?> builder) throws IOException {
        short version = (short) Math.min(builder.latestAllowedVersion(), maxVersion(builder.apiKey()));
        return send(builder.build(version));
    }

    @SuppressWarnings("unchecked")
    <T extends AbstractResponse> T send(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "acl-test", ++correlationId);
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
