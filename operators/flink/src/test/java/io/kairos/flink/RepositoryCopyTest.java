package io.kairos.flink;

import io.kairos.onnx.examples.ExampleModels;
import io.kairos.onnx.ModelRepository;
import io.kairos.onnx.RepositorySource;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RepositoryCopy} through Flink's real local file system, addressed by a {@code file://} URI. */
class RepositoryCopyTest {
    private static final Path REMOTE = ExampleModels.writeRepository(Path.of("target", "repository-copy-remote").toAbsolutePath());

    private static Path freshCache(String name) throws Exception {
        Path cache = Path.of("target", name).toAbsolutePath();
        if (Files.exists(cache)) {
            try (Stream<Path> all = Files.walk(cache)) {
                for (Path p : all.sorted((a, b) -> b.compareTo(a)).toList()) Files.delete(p);
            }
        }
        return cache;
    }

    private static List<Path> files(Path root) throws Exception {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile).map(root::relativize).sorted().toList();
        }
    }

    @Test
    void aUriIsCopiedFileForFileIntoTheCacheAndServesTheSameModels() throws Exception {
        Path cache = freshCache("repository-copy-cache");
        RepositorySource source = RepositoryCopy.of(REMOTE.toUri().toString(), cache);
        Path local = source.localRoot();

        assertThat(local.getParent()).isEqualTo(cache);
        assertThat(files(local)).isEqualTo(files(REMOTE)).contains(Path.of("mlp", "model.onnx"), Path.of("resnet", "model.json"));
        for (Path f : files(REMOTE)) assertThat(Files.readAllBytes(local.resolve(f))).as(f.toString()).isEqualTo(Files.readAllBytes(REMOTE.resolve(f)));
        assertThat(ModelRepository.load(local).catalog().names()).isEqualTo(ModelRepository.load(REMOTE).catalog().names());
        // Shipped to the task managers inside the device factory.
        assertThat(InstantiationUtil.clone((RepositoryCopy) source).localRoot()).isEqualTo(local);
    }

    @Test
    void onlyChangedFilesAreCopiedAgain() throws Exception {
        Path cache = freshCache("repository-copy-again");
        RepositorySource source = RepositoryCopy.of(REMOTE.toUri().toString(), cache);
        Path local = source.localRoot();
        Path manifest = local.resolve("mlp/model.json");
        // A marker of the same length and time as the original: a copy that skips it leaves it there.
        FileTime time = Files.getLastModifiedTime(manifest);
        String marker = "x".repeat((int) Files.size(manifest));
        Files.writeString(manifest, marker);
        Files.setLastModifiedTime(manifest, time);
        source.localRoot();
        assertThat(Files.readString(manifest)).as("unchanged at the source: not copied").isEqualTo(marker);

        Files.setLastModifiedTime(REMOTE.resolve("mlp/model.json"), FileTime.fromMillis(time.toMillis() + 60_000));
        source.localRoot();
        assertThat(Files.readString(manifest)).as("changed at the source: copied").isEqualTo(Files.readString(REMOTE.resolve("mlp/model.json")));
        assertThat(files(local)).as("no partial file left").isEqualTo(files(REMOTE));
    }

    @Test
    void aPlainPathIsUsedWhereItIs() {
        assertThat(RepositoryCopy.of("target/repository-copy-remote").localRoot()).isEqualTo(REMOTE);
    }

    @Test
    void aRepositoryThatCannotBeReadSaysWhereAndWhy() {
        assertThatThrownBy(() -> RepositoryCopy.of("nosuchfs://host/models").localRoot())
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("model repository nosuchfs://host/models: ")
                .hasMessageContaining("'nosuchfs'");
        String missing = REMOTE.resolveSibling("no-such-repository").toUri().toString();
        assertThatThrownBy(() -> RepositoryCopy.of(missing).localRoot())
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("model repository " + missing + ": no such folder");
        assertThatThrownBy(() -> RepositoryCopy.of("s3://bucket/my models"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("model repository s3://bucket/my models: not a URI");
    }
}
