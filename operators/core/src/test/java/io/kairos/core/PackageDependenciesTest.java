package io.kairos.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's packages depend on each other without cycles, read from the imports of its sources:
 * the scheduler's view of devices lives with the scheduler, executors apart, so that
 * {@code scheduling} may use {@code device} and never the other way round.
 */
class PackageDependenciesTest {
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?(io\\.kairos\\.core(?:\\.[a-z]\\w*)*)\\.[A-Z]", Pattern.MULTILINE);

    static Map<String, Set<String>> dependencies(Path sources) throws IOException {
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher p = PACKAGE.matcher(text);
                if (!p.find()) continue;
                Set<String> out = deps.computeIfAbsent(p.group(1), k -> new TreeSet<>());
                for (Matcher m = IMPORT.matcher(text); m.find(); ) {
                    if (!m.group(1).equals(p.group(1))) out.add(m.group(1));
                }
            }
        }
        return deps;
    }

    /** Every cycle's packages, found by depth-first search from each package. */
    static List<List<String>> cycles(Map<String, Set<String>> deps) {
        List<List<String>> found = new ArrayList<>();
        for (String start : deps.keySet()) walk(start, new ArrayList<>(List.of(start)), deps, found);
        return found;
    }

    private static void walk(String at, List<String> path, Map<String, Set<String>> deps, List<List<String>> found) {
        for (String next : deps.getOrDefault(at, Set.of())) {
            if (next.equals(path.get(0))) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(next);
                found.add(cycle);
            } else if (!path.contains(next) && next.compareTo(path.get(0)) > 0) { // each cycle once, from its smallest package
                path.add(next);
                walk(next, path, deps, found);
                path.remove(path.size() - 1);
            }
        }
    }

    @Test
    void theCorePackagesHaveNoCycles() throws IOException {
        Map<String, Set<String>> deps = dependencies(Path.of("src/main/java"));
        assertThat(deps).containsKeys("io.kairos.core.device", "io.kairos.core.scheduling");
        assertThat(cycles(deps)).as("package cycles in %s", deps).isEmpty();
        assertThat(deps.get("io.kairos.core.device")).as("executors know nothing of the scheduler").doesNotContain("io.kairos.core.scheduling");
    }

    @Test
    void theCycleFinderFindsACycle() {
        assertThat(cycles(Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"))))
                .containsExactly(List.of("a", "b", "c", "a"));
    }
}
