package io.kairos.core;

import java.io.IOException;
import java.io.UncheckedIOException;
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

/**
 * Which package of a source tree imports which other package under the same root, and the cycles
 * among them. Shared with the other modules' package tests through this module's test jar.
 */
public final class PackageGraph {
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    private PackageGraph() {}

    /**
     * Each package of the sources under {@code sources} with the packages under {@code root} (e.g.
     * {@code io.kairos.core}) that its files import, itself left out.
     */
    public static Map<String, Set<String>> dependencies(Path sources, String root) {
        Pattern imports = Pattern.compile("^import (?:static )?(" + Pattern.quote(root) + "(?:\\.[a-z]\\w*)*)\\.[A-Z]", Pattern.MULTILINE);
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher p = PACKAGE.matcher(text);
                if (!p.find()) continue;
                Set<String> out = deps.computeIfAbsent(p.group(1), k -> new TreeSet<>());
                for (Matcher m = imports.matcher(text); m.find(); ) {
                    if (!m.group(1).equals(p.group(1))) out.add(m.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return deps;
    }

    /** Every cycle's packages, found by depth-first search from each package. */
    public static List<List<String>> cycles(Map<String, Set<String>> deps) {
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
}
