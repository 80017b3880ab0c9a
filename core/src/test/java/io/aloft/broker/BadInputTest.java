package io.aloft.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed and oversized frames close only their own connection; the broker keeps serving
 * others and loses nothing.
 */
class BadInputTest {
    @TempDir
    static Path dir;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new TestBroker(dir, Map.of("socket.request.max.bytes", "65536"));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", broker.broker().port("PLAINTEXT"));
        s.setSoTimeout(30_000);
        return s;
    }

    /** Whether the server closed the connection (reads hit end of stream). */
    private static boolean closedByServer(Socket s) throws IOException {
        try {
            int b = s.getInputStream().read();
            return b == -1;
        } catch (java.net.SocketException e) {
            return true; // reset by the server
        }
    }

    private static void assertBrokerStillServes() throws Exception {
        try (Admin admin = Admin.create(broker.clientProps())) {
            String name = "alive-" + System.nanoTime();
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(name));
        }
    }

    @Test
    void oversizedFrameClosesThatConnectionOnly() throws Exception {
        try (Socket bystander = connect(); Socket s = connect()) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(10 << 20); // announces 10 MiB, above socket.request.max.bytes
            out.write(new byte[1024]);
            out.flush();
            assertTrue(closedByServer(s));
            // The other connection still gets answers.
            assertEquals(Errors.NONE.code(), apiVersions(bystander, ApiKeys.API_VERSIONS.latestVersion()).errorCode());
        }
        assertBrokerStillServes();
    }

    @Test
    void garbageHeaderClosesTheConnection() throws Exception {
        try (Socket s = connect()) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(6);
            out.write(new byte[] {(byte) 0x7f, 0x7f, 0, 1, 0, 0}); // API key 32639: no such API
            out.flush();
            assertTrue(closedByServer(s));
        }
        assertBrokerStillServes();
    }

    @Test
    void truncatedBodyClosesTheConnection() throws Exception {
        try (Socket s = connect()) {
            // A Metadata v12 header with a body cut short.
            RequestHeader header = new RequestHeader(ApiKeys.METADATA, (short) 12, "bad", 7);
            org.apache.kafka.common.protocol.ObjectSerializationCache cache =
                    new org.apache.kafka.common.protocol.ObjectSerializationCache();
            ByteBuffer h = ByteBuffer.allocate(header.data().size(cache, header.headerVersion()) + 3);
            header.data().write(new ByteBufferAccessor(h), cache, header.headerVersion());
            h.put((byte) 5).put((byte) 0).put((byte) 0);
            h.flip();
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(h.remaining());
            out.write(h.array(), 0, h.remaining());
            out.flush();
            assertTrue(closedByServer(s));
        }
        assertBrokerStillServes();
    }

    @Test
    void apiVersionsAtAnUnknownVersionGetsUnsupportedVersionWithTheRanges() throws Exception {
        try (Socket s = connect()) {
            ApiVersionsResponseData r = apiVersions(s, (short) (ApiKeys.API_VERSIONS.latestVersion() + 5));
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), r.errorCode());
            assertTrue(r.apiKeys().find(ApiKeys.METADATA.id) != null, "the served ranges come with the error");
        }
    }

    @Test
    void apiVersionsListsOnlyServedApis() throws Exception {
        try (Socket s = connect()) {
            ApiVersionsResponseData r = apiVersions(s, ApiKeys.API_VERSIONS.latestVersion());
            assertEquals(Errors.NONE.code(), r.errorCode());
            assertTrue(r.apiKeys().find(ApiKeys.CREATE_TOPICS.id) != null);
            // Not served (yet): must not be advertised.
            assertEquals(null, r.apiKeys().find(ApiKeys.ELECT_LEADERS.id));
        }
    }

    /** Sends ApiVersions at {@code version} over a raw socket and reads the answer (always header v0, body v0 on error). */
    private static ApiVersionsResponseData apiVersions(Socket s, short version) throws IOException {
        short bodyVersion = (short) Math.min(version, ApiKeys.API_VERSIONS.latestVersion());
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, version, "raw-test", 42);
        ApiVersionsRequestData body = new ApiVersionsRequestData().setClientSoftwareName("raw")
                .setClientSoftwareVersion("1");
        org.apache.kafka.common.protocol.ObjectSerializationCache cache =
                new org.apache.kafka.common.protocol.ObjectSerializationCache();
        short headerVersion = ApiKeys.API_VERSIONS.requestHeaderVersion(bodyVersion);
        int size = header.data().size(cache, headerVersion) + body.size(cache, bodyVersion);
        ByteBuffer buf = ByteBuffer.allocate(size);
        header.data().write(new ByteBufferAccessor(buf), cache, headerVersion);
        body.write(new ByteBufferAccessor(buf), cache, bodyVersion);
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(size);
        out.write(buf.array());
        out.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            throw new AssertionError("connection closed instead of an answer");
        }
        byte[] response = new byte[length];
        in.readFully(response);
        ByteBuffer rb = ByteBuffer.wrap(response);
        ResponseHeader rh = ResponseHeader.parse(rb, (short) 0); // ApiVersions responses always use header v0
        assertEquals(42, rh.correlationId());
        ApiVersionsResponseData data = new ApiVersionsResponseData();
        short responseVersion = rb.remaining() > 0 && version > ApiKeys.API_VERSIONS.latestVersion() ? 0 : bodyVersion;
        data.read(new ByteBufferAccessor(rb), responseVersion);
        return data;
    }

    static {
        // ApiVersionsRequest is referenced so the request class's version checks stay linked to this test.
        ApiVersionsRequest.class.getName();
    }
}
