package io.aloft.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Encodes a response frame: 4-byte size, response header (v0 or flexible v1 per the API
 * version), body — with kafka-clients' generated message classes, so tagged fields and flexible
 * versions are written exactly as Kafka defines them.
 */
final class ResponseWriter {
    private ResponseWriter() {
    }

    static ByteBuf encode(ByteBufAllocator alloc, ApiKeys apiKey, short apiVersion, int correlationId, ApiMessage body) {
        short headerVersion = apiKey.responseHeaderVersion(apiVersion);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.size(cache, headerVersion);
        int bodySize = body.size(cache, apiVersion);
        ByteBuffer out = ByteBuffer.allocate(4 + headerSize + bodySize);
        out.putInt(headerSize + bodySize);
        ByteBufferAccessor writer = new ByteBufferAccessor(out);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, apiVersion);
        out.flip();
        ByteBuf buf = alloc.buffer(out.remaining());
        buf.writeBytes(out);
        return buf;
    }
}
