package io.kairos.testbed.experiment;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The thresholds every shape check judges by, fixed before the runs in one committed file,
 * {@code testbed/experiments/TARGETS.md}: a Markdown table of experiment, claim, threshold, what
 * the threshold bounds and where it comes from (a paper, a physical bound, the project's goal).
 * A check asks for its threshold by experiment and claim and never holds the number itself, so
 * that changing a target is a diff of that file, with its reason, and not an edit of a check.
 *
 * <p>The build copies the file onto the classpath; {@link #get()} reads it from there once.
 */
public final class Targets {
    /** The file's name, at {@code testbed/experiments/} in the sources and at the classpath's root. */
    public static final String FILE = "TARGETS.md";
    static final List<String> HEADER = List.of("experiment", "claim", "threshold", "bounds", "source");

    private static Targets loaded;

    private final Map<String, Target> targets;

    /** One row of the file. */
    public record Target(String experiment, String claim, double threshold, String bounds, String source) {}

    private Targets(Map<String, Target> targets) {
        this.targets = targets;
    }

    /** The committed targets, read from the classpath on first use. */
    public static synchronized Targets get() {
        if (loaded == null) {
            try (InputStream in = Targets.class.getResourceAsStream("/" + FILE)) {
                if (in == null) throw new IllegalStateException(FILE + " is not on the classpath (the testbed build copies it from testbed/experiments/)");
                List<String> lines = new ArrayList<>();
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) lines.add(line);
                }
                loaded = parse(lines, FILE);
            } catch (IOException e) {
                throw new UncheckedIOException(FILE + ": " + e.getMessage(), e);
            }
        }
        return loaded;
    }

    /** The threshold of {@code claim} in {@code experiment}, from the committed file. */
    public static double of(String experiment, String claim) {
        return get().threshold(experiment, claim);
    }

    /** The threshold of {@code claim} in {@code experiment}; an unknown pair is refused, naming it and the file. */
    public double threshold(String experiment, String claim) {
        Target t = targets.get(experiment + "/" + claim);
        if (t == null) throw new IllegalArgumentException(FILE + " has no target for experiment " + experiment + ", claim " + claim);
        return t.threshold();
    }

    /** Every target, in the file's order. */
    public List<Target> all() {
        return List.copyOf(targets.values());
    }

    /**
     * Reads the rows of the first table whose header is {@link #HEADER}; other text is prose. A
     * malformed row (a missing cell, a threshold that is not a number, a pair given twice) is
     * refused with the file, the line and what is wrong.
     */
    static Targets parse(List<String> lines, String file) {
        Map<String, Target> targets = new LinkedHashMap<>();
        boolean inTable = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (!line.startsWith("|")) {
                if (inTable) break;
                continue;
            }
            List<String> cells = cells(line);
            if (!inTable) {
                if (cells.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList().equals(HEADER)) inTable = true;
                continue;
            }
            if (cells.stream().allMatch(c -> c.matches(":?-+:?"))) continue;
            String where = file + " line " + (i + 1) + ": ";
            if (cells.size() != HEADER.size()) throw new IllegalArgumentException(where + "a row needs " + HEADER.size() + " cells " + HEADER + ", found " + cells.size());
            for (int c = 0; c < cells.size(); c++) {
                if (cells.get(c).isEmpty()) throw new IllegalArgumentException(where + "the " + HEADER.get(c) + " cell is empty");
            }
            double threshold;
            try {
                threshold = Double.parseDouble(cells.get(2));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + "threshold '" + cells.get(2) + "' is not a number");
            }
            Target t = new Target(cells.get(0), cells.get(1), threshold, cells.get(3), cells.get(4));
            if (targets.putIfAbsent(t.experiment() + "/" + t.claim(), t) != null) {
                throw new IllegalArgumentException(where + "experiment " + t.experiment() + ", claim " + t.claim() + " is given twice");
            }
        }
        if (!inTable) throw new IllegalArgumentException(file + ": no table with the header " + String.join(" | ", HEADER));
        return new Targets(targets);
    }

    private static List<String> cells(String line) {
        String body = line.substring(1, line.endsWith("|") && line.length() > 1 ? line.length() - 1 : line.length());
        List<String> cells = new ArrayList<>();
        for (String c : body.split("(?<!\\\\)\\|", -1)) cells.add(c.strip().replace("\\|", "|").replace("`", ""));
        return cells;
    }
}
