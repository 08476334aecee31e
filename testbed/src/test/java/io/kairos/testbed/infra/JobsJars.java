package io.kairos.testbed.infra;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/** The jars the jobs module packages (the serving job's, the tuner's), for the tests that look inside them. */
final class JobsJars {
    private JobsJars() {}

    /** The jar in jobs/target whose name ends with {@code suffix}, or null when it has not been built. */
    static Path find(String suffix) throws IOException {
        Path target = Path.of(System.getProperty("kairos.home", ".."), "jobs", "target");
        if (!Files.isDirectory(target)) target = Path.of("..", "jobs", "target");
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix)).findFirst().orElse(null);
        }
    }

    /**
     * Each Kairos class of {@code jar} that names one of {@code prefixes}, as "entry -> prefix":
     * class names in a class file's constant pool are plain UTF-8, e.g. "io/kairos/sim/Simulation".
     */
    static List<String> kairosClassesNaming(ZipFile jar, List<String> prefixes) throws IOException {
        List<String> references = new ArrayList<>();
        for (ZipEntry e : jar.stream().filter(e -> e.getName().startsWith("io/kairos/") && e.getName().endsWith(".class")).toList()) {
            String bytes;
            try (InputStream in = jar.getInputStream(e)) {
                bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            }
            for (String p : prefixes) if (bytes.contains(p)) references.add(e.getName() + " -> " + p);
        }
        return references;
    }
}
