package io.kairos.core.scheduling;

import io.kairos.core.api.PublicEvolving;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A policy network that a control decision delivered to a serving group: the bytes of its file,
 * under a name, with a short digest to tell two networks of one name apart where it is shown. Like
 * a batching table, it is a typed value beside the group's parameters ({@link ParamReader#network}):
 * the learned policy reads it, the others leave it. The bytes are checked where the decision is
 * applied and never changed after.
 */
@PublicEvolving
public final class PublishedNetwork {
    private final String name;
    private final byte[] bytes;
    private final String digest;

    public PublishedNetwork(String name, byte[] bytes) {
        this.name = name;
        this.bytes = bytes.clone();
        this.digest = digest(this.bytes);
    }

    /** The name it was published under, usually its file's name. */
    public String name() {
        return name;
    }

    /** The network file's bytes (a copy). */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** How many bytes the file has. */
    public int size() {
        return bytes.length;
    }

    /** The first 12 hex digits of the file's SHA-256. */
    public String digest() {
        return digest;
    }

    /** As shown in the plan and on the status page: {@code name (sha256 0123456789ab, 40372 bytes)}. */
    @Override
    public String toString() {
        return name + " (sha256 " + digest + ", " + bytes.length + " bytes)";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PublishedNetwork p && p.name.equals(name) && Arrays.equals(p.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + digest.hashCode();
    }

    private static String digest(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
