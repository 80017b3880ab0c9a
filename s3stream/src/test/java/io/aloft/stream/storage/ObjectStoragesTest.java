package io.aloft.stream.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Choosing and configuring a backend from a URL. */
class ObjectStoragesTest {

    @TempDir
    Path tempDir;

    private static IllegalArgumentException rejected(String url) {
        return assertThrows(IllegalArgumentException.class, () -> ObjectStorages.open(url).close(), url);
    }

    private static void assertMessage(IllegalArgumentException e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' not in: " + e.getMessage());
        }
    }

    @Test
    void validate_checksAsOpenWould_withoutTouchingAnything() {
        for (String bad : new String[] {"gs://bucket/x", "s3://ab", "s3://bucket?endpoint=ftp://h:21",
            "s3://bucket?colour=blue", "file://host/dir", "file:///"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ObjectStorages.validate(bad), bad);
            assertEquals(rejected(bad).getMessage(), e.getMessage(), "the same message as open");
        }
        // An endpoint nobody listens on: validation makes no request.
        ObjectStorages.validate("s3://bucket?endpoint=http://127.0.0.1:1&accessKey=a&secretKey=b");
        Path dir = tempDir.resolve("objects");
        ObjectStorages.validate(dir.toUri().toString());
        assertFalse(java.nio.file.Files.exists(dir), "validation creates no directory");
        assertEquals(java.util.Optional.of(dir), ObjectStorages.localDirectory(dir.toUri().toString()));
        assertEquals(java.util.Optional.empty(), ObjectStorages.localDirectory("s3://bucket"));
    }

    @Test
    void open_unknownScheme_namesUrlAndAcceptedSchemes() {
        assertMessage(rejected("gs://bucket/x"), "gs://bucket/x", "'gs'", "s3://", "file://");
        assertMessage(rejected("/just/a/path"), "/just/a/path", "s3://", "file://");
    }

    @Test
    void open_notAUri_saysSo() {
        assertMessage(rejected("s3://bucket?endpoint=http://host:9000 with spaces"), "not a valid URI");
    }

    @Test
    void open_s3WithoutBucket_saysSo() {
        assertMessage(rejected("s3://?endpoint=http://127.0.0.1:9000"), "no bucket");
        assertMessage(rejected("s3:///key"), "no bucket");
    }

    @Test
    void open_s3InvalidBucketOrPath_saysWhich() {
        assertMessage(rejected("s3://Upper_Case"), "invalid bucket name 'Upper_Case'");
        assertMessage(rejected("s3://ab"), "invalid bucket name 'ab'");
        assertMessage(rejected("s3://bucket/prefix"), "path ('/prefix')");
    }

    @Test
    void open_s3BadEndpoint_saysWhatIsExpected() {
        assertMessage(rejected("s3://bucket?endpoint=ftp://127.0.0.1:21"), "bad endpoint 'ftp://127.0.0.1:21'",
                "http(s)://HOST[:PORT]");
        assertMessage(rejected("s3://bucket?endpoint=127.0.0.1:9000"), "bad endpoint");
        assertMessage(rejected("s3://bucket?endpoint=http://127.0.0.1:9000/sub/path"), "path or query");
        assertMessage(rejected("s3://bucket?endpoint="), "no value for 'endpoint'");
    }

    @Test
    void open_s3BadParameters_namesThem() {
        assertMessage(rejected("s3://bucket?endpiont=http://h:1"), "unknown parameter 'endpiont'", "endpoint");
        assertMessage(rejected("s3://bucket?pathStyle=yes"), "pathStyle='yes'");
        assertMessage(rejected("s3://bucket?region=US EAST"), "not a valid URI");
        assertMessage(rejected("s3://bucket?region=US_EAST"), "invalid region");
        assertMessage(rejected("s3://bucket?accessKey=ak"), "both accessKey and secretKey");
        assertMessage(rejected("s3://bucket?region=a&region=b"), "repeats parameter 'region'");
    }

    @Test
    void open_badUrlWithSecret_hidesSecretInMessage() {
        IllegalArgumentException e = rejected("s3://bucket?accessKey=ak&secretKey=top-secret&bogus=1");

        assertFalse(e.getMessage().contains("top-secret"), e.getMessage());
        assertMessage(e, "secretKey=***", "bogus");
    }

    @Test
    void open_fileUrlWithHostOrNoDirectory_isRejected() {
        assertMessage(rejected("file://host/dir"), "names a host", "file:///");
        assertMessage(rejected("file:///"), "absolute directory");
        assertMessage(rejected("file:relative/dir"), "absolute directory");
        assertMessage(rejected("file:///tmp/x?sync=false"), "query");
    }

    @Test
    void open_s3Url_returnsS3BackendWithoutContactingServer() {
        // Port 1 on loopback: nothing listens; opening must not need a connection.
        try (ObjectStorage storage = ObjectStorages.open(
                "s3://my-bucket?endpoint=http://127.0.0.1:1&accessKey=a&secretKey=b")) {
            assertInstanceOf(S3ObjectStorage.class, storage);
            assertFalse(storage.toString().contains("secretKey"), storage.toString());
        }
    }

    @Test
    void open_fileUrl_returnsFileBackend() {
        try (ObjectStorage storage = ObjectStorages.open(tempDir.resolve("objects").toUri().toString())) {
            assertInstanceOf(FileObjectStorage.class, storage);
        }
    }

    @Test
    void parse_endpointWithoutRegionOrPathStyle_defaultsForS3CompatibleServers() {
        S3Location location = S3Location.parse(URI.create("s3://b-1?endpoint=http://127.0.0.1:9000"), "url");

        assertEquals("b-1", location.bucket());
        assertEquals(URI.create("http://127.0.0.1:9000"), location.endpoint());
        assertEquals("us-east-1", location.region());
        assertTrue(location.pathStyle());
        assertNull(location.accessKey());
    }

    @Test
    void parse_noEndpoint_leavesRegionToSdkAndUsesVirtualHosts() {
        S3Location location = S3Location.parse(URI.create("s3://bucket.with.dots"), "url");

        assertNull(location.endpoint());
        assertNull(location.region());
        assertFalse(location.pathStyle());
    }

    @Test
    void parse_encodedKeys_decodesPercentButKeepsPlus() {
        S3Location location = S3Location.parse(URI.create(
                "s3://bucket?accessKey=AK%2F1&secretKey=a+b%2Fc%3D&pathStyle=false&region=eu-west-1"), "url");

        assertEquals("AK/1", location.accessKey());
        assertEquals("a+b/c=", location.secretKey());
        assertEquals("eu-west-1", location.region());
        assertFalse(location.pathStyle());
        assertFalse(location.toString().contains("a+b/c="), location.toString());
    }
}
