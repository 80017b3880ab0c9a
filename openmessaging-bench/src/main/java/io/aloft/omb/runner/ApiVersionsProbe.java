package io.aloft.omb.runner;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Asks one broker which APIs it advertises: one ApiVersions request on a connection of its own,
 * sent before any authentication as every Kafka client does (so SASL listeners answer it too), over
 * TLS when the client properties say {@code SSL} or {@code SASL_SSL} (trusting
 * {@code ssl.truststore.*}; the host name is not checked: this only reads a list, and the real clients
 * that follow check it). The Admin client keeps what it learns to itself, hence this. Stateless.
 */
final class ApiVersionsProbe {
    private static final short VERSION = 3;
    private static final int MAX_RESPONSE_BYTES = 1 << 20;

    private ApiVersionsProbe() {
    }

    /** The ApiVersions answer of the first broker in {@code bootstrap}; IOException if it cannot be had. */
    static ApiVersionsResponseData fetch(String bootstrap, Properties client, Duration timeout) throws IOException {
        String first = bootstrap.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        if (colon <= 0) {
            throw new IOException("bootstrap address '" + first + "' is not host:port");
        }
        InetSocketAddress address = new InetSocketAddress(first.substring(0, colon),
                Integer.parseInt(first.substring(colon + 1)));
        String protocol = client.getProperty("security.protocol", "PLAINTEXT").trim().toUpperCase(Locale.ROOT);
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket socket = protocol.endsWith("SSL") ? tls(client) : new Socket()) {
            socket.connect(address, millis);
            socket.setSoTimeout(millis);
            if (socket instanceof SSLSocket ssl) {
                ssl.startHandshake();
            }
            RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, VERSION, "aloft-omb-probe", 1);
            ByteBuffer request = new ApiVersionsRequest.Builder().build(VERSION).serializeWithHeader(header);
            byte[] bytes = new byte[request.remaining()];
            request.get(bytes);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            if (size < 0 || size > MAX_RESPONSE_BYTES) {
                throw new IOException("ApiVersions answer of " + first + " claims " + size + " bytes");
            }
            byte[] body = new byte[size];
            in.readFully(body);
            ApiVersionsResponse response = (ApiVersionsResponse) NetworkClient.parseResponse(ByteBuffer.wrap(body),
                    header);
            Errors error = Errors.forCode(response.data().errorCode());
            if (error != Errors.NONE) {
                throw new IOException("ApiVersions v" + VERSION + " to " + first + " answered " + error);
            }
            return response.data();
        }
    }

    private static Socket tls(Properties client) throws IOException {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            String location = client.getProperty("ssl.truststore.location");
            if (location == null || location.isBlank()) {
                context.init(null, null, null);
            } else {
                KeyStore store = KeyStore.getInstance(client.getProperty("ssl.truststore.type", "JKS").trim());
                String password = client.getProperty("ssl.truststore.password");
                try (InputStream in = Files.newInputStream(Path.of(location.trim()))) {
                    store.load(in, password == null ? null : password.toCharArray());
                }
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(store);
                context.init(null, trust.getTrustManagers(), null);
            }
            return context.getSocketFactory().createSocket();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS from ssl.truststore.*: " + e.getMessage(), e);
        }
    }
}
