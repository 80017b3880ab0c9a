package io.aloft.broker.network;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes a response frame: 4-byte size, response header (v0 or flexible v1 per the API
 * version), body — with kafka-clients' generated message classes, so tagged fields and flexible
 * versions are written exactly as Kafka defines them.
 *
 * <p>Encoding is where a response that does not fit its version fails (a field set that the version
 * does not have, a string too long for its length prefix): the generated classes throw rather than
 * write a frame the client would misread. The caller decides what the client gets instead.
 *
 * <p>Stateless.
 */
final class ResponseWriter {
    private ResponseWriter() {
    }

    /**
     * The whole frame, size prefix included, as buffers to send in order: fields in new heap
     * buffers, large record sets by reference ({@link FrameWriter}).
     *
     * @throws RuntimeException (kafka-clients' {@code UnsupportedVersionException} and others) when
     *     {@code body} cannot be written at {@code apiVersion}
     */
    static ByteBuffer[] encode(ApiKeys apiKey, short apiVersion, int correlationId, ApiMessage body) {
        short headerVersion = apiKey.responseHeaderVersion(apiVersion);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.size(cache, headerVersion);
        int bodySize = body.size(cache, apiVersion);
        FrameWriter writer = new FrameWriter(4 + headerSize + bodySize);
        writer.writeInt(headerSize + bodySize);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, apiVersion);
        return writer.finish();
    }
}
