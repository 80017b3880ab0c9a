/**
 * The object format: how stream data is laid out in objects in object storage, and how it is
 * written and read.
 *
 * <p>One format serves both kinds of object: stream-set objects (many streams, written when a
 * broker's log cache is sealed) and stream objects (one stream's contiguous range, written by
 * compaction). The layout is in {@link io.aloft.stream.object.ObjectFormat}: data blocks of one
 * stream each, an index sorted by (stream, offset), and a fixed footer, so a reader needs one
 * ranged GET for the footer and index and one per block.
 *
 * <ul>
 *   <li>{@link io.aloft.stream.object.ObjectUploader} writes an object straight to storage
 *       (one put, or a multipart upload for big objects); {@link io.aloft.stream.object.ObjectWriter}
 *       encodes one in memory; {@link io.aloft.stream.object.StreamedObjectBody} is an object of
 *       known batches as the body of one put, encoded block by block while it is sent and paced
 *       by an {@link io.aloft.stream.object.UploadThrottle} (how seals are uploaded).</li>
 *   <li>{@link io.aloft.stream.object.ObjectReader} finds blocks for an offset range and reads
 *       them as {@link io.aloft.stream.object.DataBlock}s.</li>
 *   <li>{@link io.aloft.stream.object.ObjectKeys} maps object ids to storage keys.</li>
 * </ul>
 *
 * <p>This package knows nothing of caching or metadata beyond the records it returns; a block
 * cache wraps {@code ObjectReader.readBlock}, keyed by {@link io.aloft.stream.object.DataBlockKey}.
 */
package io.aloft.stream.object;
