package io.kairos.flink;

import io.kairos.onnx.RepositorySource;
import io.kairos.wire.Secrets;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A model repository at a URI ({@code s3://bucket/models}, {@code hdfs://...}, {@code file:///...}),
 * read through Flink's file systems, so that whatever the cluster is configured to reach (its
 * file system plugins, their credentials) serves models too. Each process copies it to a local
 * cache folder before its devices open it, since ONNX Runtime loads models from local files, and
 * copies again only the files that changed (length or modification time) since the last copy.
 *
 * <p>A location may carry credentials in its user information ({@code s3://key:secret@bucket/models}):
 * every message and {@link #toString} mask them ({@link Secrets#maskUris}).
 *
 * <p>Files arrive under a temporary name and are moved into place, so that a device slot of
 * another process sharing the cache never sees half a model; the slots of one process copy one at
 * a time.
 */
public final class RepositoryCopy implements RepositorySource {
    private static final long serialVersionUID = 1L;
    private static final Pattern URI_WITH_SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:/.*");
    private static final Map<String, Object> LOCKS = new ConcurrentHashMap<>();

    private final String location;
    private final String cacheRoot;

    private RepositoryCopy(String location, Path cacheRoot) {
        this.location = location;
        this.cacheRoot = cacheRoot.toString();
    }

    /**
     * The source for a {@code --model-repository} value: a URI with a scheme is copied from there
     * into {@code java.io.tmpdir}/kairos-models, anything else is a local folder.
     */
    public static RepositorySource of(String location) {
        return of(location, Path.of(System.getProperty("java.io.tmpdir"), "kairos-models"));
    }

    static RepositorySource of(String location, Path cacheRoot) {
        if (!URI_WITH_SCHEME.matcher(location).matches()) return RepositorySource.local(Path.of(location));
        try {
            new URI(location);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(Secrets.maskUris("model repository " + location + ": not a URI (" + e.getMessage() + ")"));
        }
        return new RepositoryCopy(location, cacheRoot);
    }

    /** The folder of the local copy of this repository. */
    Path copyDir() {
        return Path.of(cacheRoot, digest(location));
    }

    @Override
    public Path localRoot() {
        Path target = copyDir();
        synchronized (LOCKS.computeIfAbsent(target.toString(), k -> new Object())) {
            try {
                org.apache.flink.core.fs.Path root = new org.apache.flink.core.fs.Path(location);
                FileSystem fs = root.getFileSystem();
                if (!fs.exists(root) || !fs.getFileStatus(root).isDir()) throw new IOException("no such folder");
                copyTree(fs, root, target);
                return target;
            } catch (IOException e) {
                throw new UncheckedIOException(Secrets.maskUris("model repository " + location + ": " + e.getMessage()), masked(e));
            }
        }
    }

    /**
     * {@code e} as a cause that can be logged: its message with the user information of any URI
     * masked (a file system's message may repeat the location), its stack kept, its own causes left
     * out since their messages are not ours to vouch for.
     */
    private static IOException masked(IOException e) {
        IOException m = new IOException(Secrets.maskUris(e.toString()));
        m.setStackTrace(e.getStackTrace());
        return m;
    }

    private static void copyTree(FileSystem fs, org.apache.flink.core.fs.Path dir, Path target) throws IOException {
        Files.createDirectories(target);
        for (FileStatus f : fs.listStatus(dir)) {
            String name = f.getPath().getName();
            if (f.isDir()) {
                copyTree(fs, f.getPath(), target.resolve(name));
            } else {
                copyFile(fs, f, target.resolve(name));
            }
        }
    }

    private static void copyFile(FileSystem fs, FileStatus remote, Path local) throws IOException {
        FileTime modified = FileTime.fromMillis(remote.getModificationTime());
        if (Files.isRegularFile(local) && Files.size(local) == remote.getLen() && Files.getLastModifiedTime(local).equals(modified)) return;
        Path partial = local.resolveSibling(local.getFileName() + ".part-" + UUID.randomUUID());
        try (FSDataInputStream in = fs.open(remote.getPath())) {
            Files.copy(in, partial);
            Files.setLastModifiedTime(partial, modified);
            Files.move(partial, local, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    private static String digest(String location) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(location.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JVM has SHA-256
        }
    }

    /** The location with its user information masked: this is what logs and messages show. */
    @Override
    public String toString() {
        return Secrets.maskUris(location);
    }
}
