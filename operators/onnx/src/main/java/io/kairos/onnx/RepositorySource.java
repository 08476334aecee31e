package io.kairos.onnx;

import java.io.Serializable;
import java.nio.file.Path;

/**
 * Where a process finds a model repository on its local disk. Shipped with the job to every
 * device slot, hence serializable: a folder that every machine mounts at the same place is used
 * as it is, and a repository at a URI is copied to each machine first (see the Flink job's
 * {@code RepositoryCopy}).
 */
@FunctionalInterface
public interface RepositorySource extends Serializable {

    /** The repository's root folder on this machine, up to date. */
    Path localRoot();

    /** A folder on the local disk. */
    static RepositorySource local(Path dir) {
        String root = dir.toAbsolutePath().toString(); // a String: Path is not serializable
        return () -> Path.of(root);
    }
}
