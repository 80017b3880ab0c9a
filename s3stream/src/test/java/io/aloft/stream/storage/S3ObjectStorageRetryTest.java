package io.aloft.stream.storage;

import static io.aloft.stream.storage.ObjectStorageContract.await;
import static io.aloft.stream.storage.ObjectStorageContract.bytes;
import static io.aloft.stream.storage.ObjectStorageContract.failure;
import static io.aloft.stream.storage.ObjectStorageContract.string;
import static io.aloft.stream.storage.ObjectStorageContract.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failure handling of the S3 backend against a scripted HTTP server on 127.0.0.1. This is the
 * one place a fake server is justified: a real S3 server cannot be made to answer 503 SlowDown
 * or 500 on demand, nor to return per-key errors from DeleteObjects or ignore a Range header.
 */
class S3ObjectStorageRetryTest {

    private static final String BUCKET = "bucket";

    /** A canned HTTP answer. */
    private record Answer(int status, String body, String contentRange) {
        static Answer error(int status, String code) {
            return new Answer(status, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code
                    + "</Code><Message>scripted " + code + "</Message><RequestId>r1</RequestId></Error>", null);
        }

        static Answer ok(String body) {
            return new Answer(200, body, null);
        }
    }

    private final Queue<Answer> script = new ConcurrentLinkedQueue<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private ObjectStorage storage;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        storage = ObjectStorages.open("s3://" + BUCKET + "?endpoint=http://127.0.0.1:" + server.getAddress().getPort()
                + "&accessKey=test&secretKey=test", ObjectStorageOptions.builder()
                .maxAttempts(3)
                .retryBaseDelay(Duration.ofMillis(1))
                .retryMaxDelay(Duration.ofMillis(20))
                .build());
    }

    @AfterEach
    void stop() {
        storage.close();
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
        Answer answer = script.poll();
        if (answer == null) {
            answer = Answer.error(500, "NoScriptedAnswer");
        }
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("ETag", "\"0123456789abcdef\"");
        if (answer.contentRange() != null) {
            exchange.getResponseHeaders().add("Content-Range", answer.contentRange());
        }
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(answer.status(), body.length == 0 || head ? -1 : body.length);
        if (!head && body.length > 0) {
            exchange.getResponseBody().write(body);
        }
        exchange.close();
    }

    @Test
    void put_twoSlowDownsThenOk_succeedsAndCountsTwoRetries() throws Exception {
        script.add(Answer.error(503, "SlowDown"));
        script.add(Answer.error(503, "SlowDown"));
        script.add(Answer.ok(""));

        await(storage.put("k", utf8("value")));

        assertEquals(List.of("PUT /bucket/k", "PUT /bucket/k", "PUT /bucket/k"), seen);
        ObjectStorageStats stats = storage.stats();
        assertEquals(1, stats.requests(Operation.PUT));
        assertEquals(2, stats.retries(Operation.PUT));
        assertEquals(0, stats.failures(Operation.PUT));
        assertEquals(5, stats.bytes(Operation.PUT));
    }

    @Test
    void putBody_slowDownThenOk_readsTheBodyAgainForTheRetry() throws Exception {
        script.add(Answer.error(503, "SlowDown"));
        script.add(Answer.ok(""));
        ChunkedPutBody body = new ChunkedPutBody(new byte[200_000], 64 * 1024);

        await(storage.put("k", body));

        assertEquals(List.of("PUT /bucket/k", "PUT /bucket/k"), seen);
        assertEquals(2, body.passes.get());
        assertEquals(1, storage.stats().requests(Operation.PUT));
        assertEquals(200_000, storage.stats().bytes(Operation.PUT));
    }

    @Test
    void get_internalErrorThenOk_returnsBodyAfterOneRetry() throws Exception {
        script.add(Answer.error(500, "InternalError"));
        script.add(Answer.ok("payload"));

        assertEquals("payload", string(await(storage.get("k"))));

        assertEquals(2, seen.size());
        assertEquals(1, storage.stats().retries(Operation.GET));
        assertEquals(7, storage.stats().bytes(Operation.GET));
    }

    @Test
    void put_slowDownOnEveryAttempt_failsAfterMaxAttemptsAndCountsFailure() {
        for (int i = 0; i < 3; i++) {
            script.add(Answer.error(503, "SlowDown"));
        }

        ObjectStorageException e = assertInstanceOf(ObjectStorageException.class,
                failure(storage.put("k", utf8("value"))));

        assertTrue(e.getMessage().contains("503") && e.getMessage().contains("SlowDown"), e.getMessage());
        assertTrue(e.getMessage().contains("PUT 'k'"), e.getMessage());
        assertEquals(3, seen.size());
        assertEquals(2, storage.stats().retries(Operation.PUT));
        assertEquals(1, storage.stats().failures(Operation.PUT));
    }

    @Test
    void get_notFound_isNotRetried() {
        script.add(Answer.error(404, "NoSuchKey"));

        assertInstanceOf(ObjectNotFoundException.class, failure(storage.get("k")));

        assertEquals(1, seen.size());
        assertEquals(0, storage.stats().retries(Operation.GET));
    }

    @Test
    void head_bareNotFound_isObjectNotFound() {
        script.add(new Answer(404, "", null));

        assertInstanceOf(ObjectNotFoundException.class, failure(storage.head("k")));
    }

    @Test
    void delete_perKeyErrorsInOkResponse_failsWithStorageException() {
        script.add(Answer.ok("<?xml version=\"1.0\" encoding=\"UTF-8\"?><DeleteResult><Error><Key>b</Key>"
                + "<Code>AccessDenied</Code><Message>no</Message></Error></DeleteResult>"));

        ObjectStorageException e = assertInstanceOf(ObjectStorageException.class,
                failure(storage.delete(List.of("a", "b"))));

        assertTrue(e.getMessage().contains("AccessDenied") && e.getMessage().contains("'b'"), e.getMessage());
        assertEquals(List.of("POST /bucket"), seen);
        assertEquals(1, storage.stats().failures(Operation.DELETE));
    }

    @Test
    void get_rangeIgnoredByServer_isCutFromWholeObject() throws Exception {
        script.add(Answer.ok("0123456789"));

        assertArrayEquals("3456".getBytes(StandardCharsets.US_ASCII), bytes(await(storage.get("k", 3, 7))));
    }

    @Test
    void get_rangeAnswered416_returnsEmpty() throws Exception {
        script.add(Answer.error(416, "InvalidRange"));

        assertEquals(0, await(storage.get("k", 100, 200)).remaining());
        assertEquals(0, storage.stats().failures(Operation.GET));
    }

    @Test
    void get_rangeAnswered206_returnsBody() throws Exception {
        script.add(new Answer(206, "3456", "bytes 3-6/10"));

        assertEquals("3456", string(await(storage.get("k", 3, 7))));
        assertFalse(seen.isEmpty());
    }
}
