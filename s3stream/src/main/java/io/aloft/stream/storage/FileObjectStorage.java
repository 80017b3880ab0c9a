package io.aloft.stream.storage;

import io.aloft.stream.storage.ObjectStorageStats.Operation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ObjectStorage} as one file per object under a root directory: key {@code a/b/c} is the
 * file {@code ROOT/a/b/c}. The embedded single-node default. Thread-safe: no shared mutable
 * state besides the file system and atomic counters; blocking IO runs on a small named pool.
 *
 * <p><b>Durability:</b> a put writes a temp file under {@code ROOT/.aloft-tmp/<open id>}, fsyncs it,
 * creates (and fsyncs) missing parent directories, renames it into place atomically, and fsyncs
 * the parent directory, so a completed put survives a crash and a crash never exposes a partial
 * object. Deletes fsync the directories they change.
 *
 * <p><b>Shared directories:</b> several processes (the brokers of a local cluster) may use one
 * root, so each open gets its own temp directory, removed on close; what a crashed process left
 * there is removed by the next open once it is {@link #ABANDONED_TEMP_MS} old (a live one renames or
 * deletes its temp files within seconds).
 *
 * <p><b>Reads</b> are positional reads on an open channel; since objects are replaced by rename,
 * a read in progress keeps seeing the file it opened.
 *
 * <p>Multipart uploads keep parts in a temp directory and concatenate them on complete. Empty
 * directories left by deletes are removed; a put racing that removal retries. Keys are
 * restricted (see {@link ObjectStorages}).
 */
final class FileObjectStorage implements ObjectStorage {

    private static final Logger LOG = LoggerFactory.getLogger(FileObjectStorage.class);

    static final String TMP_DIR = ".aloft-tmp";
    /** Age after which another open's temp file is taken as a crash's leftover. */
    static final long ABANDONED_TEMP_MS = 24 * 3600_000L;

    /** A put whose parent directory is removed under it by a concurrent delete tries again. */
    private static final int PUBLISH_ATTEMPTS = 5;

    private final Path root;
    /** Every open's temp directories are under this one. */
    private final Path tmpRoot;
    /** This open's own temp directory; created again if a sweep took it while this open sat idle. */
    private final Path tmp;
    private final ExecutorService executor;
    private final ObjectStorageStats stats = new ObjectStorageStats();
    private final int listPageSize;
    private final AtomicBoolean closed = new AtomicBoolean();

    private FileObjectStorage(Path root, Path tmp, ExecutorService executor, int listPageSize) {
        this.root = root;
        this.tmpRoot = root.resolve(TMP_DIR);
        this.tmp = tmp;
        this.executor = executor;
        this.listPageSize = listPageSize;
    }

    static FileObjectStorage open(Path root, ObjectStorageOptions options) {
        Path dir = root.toAbsolutePath().normalize();
        Path tmp;
        try {
            Path tmpRoot = Files.createDirectories(dir.resolve(TMP_DIR));
            FileTree.removeAbandoned(tmpRoot, System.currentTimeMillis() - ABANDONED_TEMP_MS);
            tmp = Files.createDirectory(tmpRoot.resolve(UUID.randomUUID().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use object storage directory " + dir + ": " + e, e);
        }
        AtomicInteger threads = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(options.ioThreads(), r -> {
            Thread t = new Thread(r, "aloft-file-storage-" + threads.incrementAndGet());
            t.setDaemon(true);
            if (options.uncaughtExceptionHandler() != null) {
                t.setUncaughtExceptionHandler(options.uncaughtExceptionHandler());
            }
            return t;
        });
        LOG.info("Opened file object storage at {}", dir);
        return new FileObjectStorage(dir, tmp, executor, options.listPageSize());
    }

    @Override
    public CompletableFuture<Void> put(String key, ByteBuffer data) {
        Path target = path(key);
        ByteBuffer body = data.duplicate();
        long length = body.remaining();
        stats.recordRequest(Operation.PUT);
        return run(Operation.PUT, key, () -> {
            publish(writeTemp(body, ".put", true), target);
            stats.recordBytes(Operation.PUT, length);
            return null;
        });
    }

    /**
     * Writes the body to a temp file as its chunks come, each on an IO thread of its own task, so a
     * paced body holds no thread while it waits; flushed every {@value #SYNC_CHUNK_BYTES} bytes
     * like {@link #writeTemp}, then published as {@link #put(String, ByteBuffer)} does.
     */
    @Override
    public CompletableFuture<Void> put(String key, PutBody body) {
        Path target = path(key);
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException(this + " is closed"));
        }
        stats.recordRequest(Operation.PUT);
        return new FileStreamedPut(this, key, target, body).start();
    }

    @Override
    public CompletableFuture<Boolean> putIfAbsent(String key, ByteBuffer data) {
        Path target = path(key);
        ByteBuffer body = data.duplicate();
        long length = body.remaining();
        stats.recordRequest(Operation.PUT);
        return run(Operation.PUT, key, () -> {
            Path temp = writeTemp(body, ".put", true);
            try {
                FileTree.ensureDirectories(target.getParent());
                // link(2) fails if the name exists, atomically: the file system arbitrates the race.
                Files.createLink(target, temp);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                return false;
            } finally {
                Files.deleteIfExists(temp);
            }
            FileTree.syncDirectory(target.getParent());
            stats.recordBytes(Operation.PUT, length);
            return true;
        });
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key) {
        return read(key, 0, Long.MAX_VALUE, true);
    }

    @Override
    public CompletableFuture<ByteBuffer> get(String key, long start, long endExclusive) {
        S3ObjectStorage.checkRange(start, endExclusive);
        if (start == endExclusive) {
            path(key);
            return CompletableFuture.completedFuture(ByteBuffer.allocate(0));
        }
        return read(key, start, endExclusive, false);
    }

    @Override
    public CompletableFuture<List<ByteBuffer>> getParts(String key, long start, int[] partSizes) {
        long end = start + PartSizes.total(start, partSizes);
        if (start == end) {
            path(key);
            return CompletableFuture.completedFuture(PartSizes.split(ByteBuffer.allocate(0), partSizes));
        }
        int[] sizes = partSizes.clone();
        Path file = path(key);
        stats.recordRequest(Operation.GET);
        return run(Operation.GET, key, () -> {
            FileTree.requireObject(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                long left = Math.max(0, channel.size() - start);
                ByteBuffer[] parts = new ByteBuffer[sizes.length];
                for (int i = 0; i < sizes.length; i++) {
                    int n = (int) Math.min(sizes[i], left);
                    parts[i] = ByteBuffer.allocate(n);
                    left -= n;
                }
                long position = start;
                long read = 0;
                for (ByteBuffer part : parts) {
                    while (part.hasRemaining()) {
                        int n = channel.read(part, position);
                        if (n < 0) {
                            throw new IOException("object ended while reading it at " + position);
                        }
                        position += n;
                        read += n;
                    }
                    part.flip();
                }
                stats.recordBytes(Operation.GET, read);
                return List.of(parts);
            }
        });
    }

    private CompletableFuture<ByteBuffer> read(String key, long start, long endExclusive, boolean whole) {
        Path file = path(key);
        stats.recordRequest(Operation.GET);
        return run(Operation.GET, key, () -> {
            FileTree.requireObject(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = channel.size();
                if (whole && size > Integer.MAX_VALUE - 16) {
                    throw new IOException("object of " + size + " bytes does not fit one buffer; read it by range");
                }
                long end = Math.min(endExclusive, size);
                ByteBuffer buffer = ByteBuffer.allocate((int) Math.max(0, end - start));
                long position = start;
                while (buffer.hasRemaining()) {
                    int n = channel.read(buffer, position);
                    if (n < 0) {
                        break;
                    }
                    position += n;
                }
                buffer.flip();
                stats.recordBytes(Operation.GET, buffer.remaining());
                return buffer;
            }
        });
    }

    @Override
    public CompletableFuture<ObjectInfo> head(String key) {
        Path file = path(key);
        stats.recordRequest(Operation.HEAD);
        return run(Operation.HEAD, key, () -> {
            FileTree.requireObject(file);
            return new ObjectInfo(key, Files.size(file));
        });
    }

    @Override
    public CompletableFuture<MultipartUpload> createMultipartUpload(String key) {
        Path target = path(key);
        stats.recordRequest(Operation.MULTIPART_CREATE);
        return run(Operation.MULTIPART_CREATE, key, () -> {
            Path dir = Files.createDirectory(Files.createDirectories(tmp).resolve(UUID.randomUUID() + ".mpu"));
            return new FileMultipartUpload(key, target, dir);
        });
    }

    @Override
    public CompletableFuture<Void> delete(Collection<String> keys) {
        List<String> unique = new ArrayList<>(new LinkedHashSet<>(keys));
        List<Path> files = new ArrayList<>(unique.size());
        for (String key : unique) {
            files.add(path(key));
        }
        if (files.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        // Count as S3 would bill it: one DeleteObjects per 1,000 keys.
        int requests = (files.size() + S3ObjectStorage.DELETE_BATCH - 1) / S3ObjectStorage.DELETE_BATCH;
        for (int i = 0; i < requests; i++) {
            stats.recordRequest(Operation.DELETE);
        }
        return run(Operation.DELETE, null, () -> {
            Set<Path> parents = new TreeSet<>(Comparator.reverseOrder());
            for (Path file : files) {
                // A "directory" key is not an object; like a missing key, deleting it is a no-op.
                if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.deleteIfExists(file)) {
                    parents.add(file.getParent());
                }
            }
            // Deepest first, so pruning a child before its parent can empty the parent too.
            for (Path parent : parents) {
                FileTree.pruneAndSync(root, parent);
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<List<ObjectInfo>> list(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return run(Operation.LIST, prefix, () -> {
            List<ObjectInfo> out;
            try {
                out = listBlocking(prefix);
            } catch (IOException | RuntimeException e) {
                stats.recordRequest(Operation.LIST);
                throw e;
            }
            // Count as S3 would bill it: one ListObjectsV2 per page, at least one.
            int pages = Math.max(1, (out.size() + listPageSize - 1) / listPageSize);
            for (int i = 0; i < pages; i++) {
                stats.recordRequest(Operation.LIST);
            }
            return out;
        });
    }

    private List<ObjectInfo> listBlocking(String prefix) throws IOException {
        // Walk only the deepest directory the prefix pins down; the startsWith filter decides.
        Path start = root;
        int slash = prefix.lastIndexOf('/');
        if (slash > 0) {
            String dir = prefix.substring(0, slash);
            if (keyProblem(dir) != null) {
                return new ArrayList<>();   // no valid key can start with it
            }
            start = root.resolve(dir);
        }
        List<ObjectInfo> out = new ArrayList<>();
        if (!Files.isDirectory(start, LinkOption.NOFOLLOW_LINKS)) {
            return out;
        }
        Files.walkFileTree(start, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return dir.equals(tmpRoot) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    String key = root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
                    if (key.startsWith(prefix)) {
                        out.add(new ObjectInfo(key, attrs.size()));
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;    // deleted while we walked
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                return FileVisitResult.CONTINUE;
            }
        });
        out.sort(Comparator.comparing(ObjectInfo::key));
        return out;
    }

    @Override
    public ObjectStorageStats stats() {
        return stats;
    }

    /** Waits up to 30 s for operations already submitted, so their files are complete. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("File object storage {}: operations still running 30 s after close", root);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            FileTree.deleteRecursively(tmp);
        } catch (IOException e) {
            LOG.warn("File object storage {}: could not remove temp directory {} (the next open past {} ms removes it)",
                    root, tmp, ABANDONED_TEMP_MS, e);
        }
        LOG.info("Closed file object storage at {}: {}", root, stats);
    }

    @Override
    public String toString() {
        return "FileObjectStorage{" + root + '}';
    }

    // ---- plumbing ------------------------------------------------------------------------

    @FunctionalInterface
    private interface IoCall<T> {
        T run() throws IOException;
    }

    private <T> CompletableFuture<T> run(Operation operation, String key, IoCall<T> call) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException(this + " is closed"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(call.run());
                } catch (Throwable t) {
                    stats.recordFailure(operation);
                    result.completeExceptionally(translate(operation, key, t));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException(this + " is closed", e));
        }
        return result;
    }

    /** Runs {@code task} on an IO thread. @throws RejectedExecutionException once closed */
    void execute(Runnable task) {
        executor.execute(task);
    }

    /** A new temp file name of this open (the file is not created). */
    Path newTempPath(String suffix) throws IOException {
        return Files.createDirectories(tmp).resolve(UUID.randomUUID() + suffix);
    }

    /** Counts a failed {@code operation} and turns {@code error} into the exception its future fails with. */
    Throwable failed(Operation operation, String key, Throwable error) {
        stats.recordFailure(operation);
        return translate(operation, key, error);
    }

    private Throwable translate(Operation operation, String key, Throwable error) {
        if (error instanceof ObjectStorageException) {
            return error;
        }
        if (error instanceof NoSuchFileException && (operation == Operation.GET || operation == Operation.HEAD)) {
            return new ObjectNotFoundException(operation, key, error);
        }
        return new ObjectStorageException(operation, key, error + " (in " + root + ")", error);
    }

    /** Bytes written between flushes of a durable temp file. */
    static final int SYNC_CHUNK_BYTES = 4 << 20;

    /**
     * Writes {@code body} to a new temp file; fsyncs it if {@code durable}. A durable write goes
     * out {@value #SYNC_CHUNK_BYTES} bytes at a time, each made durable before the next: one flush
     * of a whole 160 MiB object would queue the WAL's writes on a shared disk behind it for a
     * hundred milliseconds and more, stalling every acknowledgement.
     */
    private Path writeTemp(ByteBuffer body, String suffix, boolean durable) throws IOException {
        Path file = Files.createDirectories(tmp).resolve(UUID.randomUUID() + suffix);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            int end = body.limit();
            while (body.hasRemaining()) {
                body.limit(durable ? Math.min(end, body.position() + SYNC_CHUNK_BYTES) : end);
                while (body.hasRemaining()) {
                    channel.write(body);
                }
                body.limit(end);
                if (durable) {
                    channel.force(false);
                }
            }
            if (durable) {
                channel.force(true);
            }
            return file;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    /** Renames a finished temp file to {@code target} atomically and makes the rename durable. */
    void publish(Path tempFile, Path target) throws IOException {
        try {
            for (int attempt = 1; ; attempt++) {
                FileTree.ensureDirectories(target.getParent());
                try {
                    Files.move(tempFile, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    break;
                } catch (NoSuchFileException e) {
                    // A concurrent delete pruned the (empty) parent between mkdir and rename.
                    if (attempt >= PUBLISH_ATTEMPTS || !Files.exists(tempFile)) {
                        throw e;
                    }
                }
            }
            FileTree.syncDirectory(target.getParent());
        } finally {
            Files.deleteIfExists(tempFile);
        }
    }

    /** The file of {@code key}. @throws IllegalArgumentException if the key cannot be a path */
    Path path(String key) {
        S3ObjectStorage.checkKey(key);
        String problem = keyProblem(key);
        if (problem != null) {
            throw new IllegalArgumentException("key '" + key + "' cannot be stored in a file object storage: "
                    + problem);
        }
        return root.resolve(key);
    }

    /** Why {@code key} cannot be a relative path under the root, or null if it can. */
    static String keyProblem(String key) {
        if (key.indexOf('\0') >= 0 || key.indexOf('\\') >= 0) {
            return "NUL and backslash are not allowed";
        }
        String[] segments = key.split("/", -1);
        for (String segment : segments) {
            if (segment.isEmpty()) {
                return "empty path segment (leading, trailing or double '/')";
            }
            if (segment.equals(".") || segment.equals("..")) {
                return "'.' and '..' segments are not allowed";
            }
        }
        if (segments[0].equals(TMP_DIR)) {
            return "'" + TMP_DIR + "/' is reserved for temp files";
        }
        return null;
    }

    /** Multipart upload as part files in a temp directory, concatenated on complete. */
    private final class FileMultipartUpload extends BaseMultipartUpload {
        private final Path target;
        private final Path dir;

        FileMultipartUpload(String key, Path target, Path dir) {
            super(key);
            this.target = target;
            this.dir = dir;
        }

        @Override
        CompletableFuture<String> sendPart(int partNumber, ByteBuffer data) {
            long size = data.remaining();
            stats.recordRequest(Operation.MULTIPART_PART);
            return run(Operation.MULTIPART_PART, key(), () -> {
                if (!Files.isDirectory(dir)) {
                    throw new IOException("upload directory " + dir + " is gone");
                }
                // Not fsynced: complete() fsyncs the assembled object, which is what must last.
                Path written = writeTemp(data, ".part", false);
                String name = "part-" + partNumber;
                Files.move(written, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
                stats.recordBytes(Operation.MULTIPART_PART, size);
                return name;
            });
        }

        @Override
        CompletableFuture<Void> sendComplete(java.util.NavigableMap<Integer, Part> parts) {
            stats.recordRequest(Operation.MULTIPART_COMPLETE);
            return run(Operation.MULTIPART_COMPLETE, key(), () -> {
                Path assembled = Files.createDirectories(tmp).resolve(UUID.randomUUID() + ".put");
                try (FileChannel out = FileChannel.open(assembled, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    for (Part part : parts.values()) {
                        try (FileChannel in = FileChannel.open(dir.resolve(part.tag()), StandardOpenOption.READ)) {
                            long size = in.size();
                            for (long position = 0; position < size; ) {
                                position += in.transferTo(position, size - position, out);
                            }
                        }
                    }
                    out.force(true);
                } catch (IOException | RuntimeException e) {
                    Files.deleteIfExists(assembled);
                    throw e;
                }
                publish(assembled, target);
                FileTree.deleteRecursively(dir);
                return null;
            });
        }

        @Override
        CompletableFuture<Void> sendAbort() {
            stats.recordRequest(Operation.MULTIPART_ABORT);
            return run(Operation.MULTIPART_ABORT, key(), () -> {
                FileTree.deleteRecursively(dir);
                return null;
            });
        }
    }
}
