package io.kairos.tools.docs;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BENCHMARKS.md's dashboard, read and checked: the one place a figure is written, which every other
 * page quotes. Above it, a machine table defines the labels a row may name (header exactly
 * {@link #MACHINE_HEADER}); then {@code ## Dashboard}, whose first table has the header exactly
 * {@link #HEADER}, one row per figure. Each row is checked so that a reader can scan the table and a
 * quote can be compared with it: an id to link, a status of a fixed set, a date, a defined machine,
 * a link to its section, and cells short enough to read at a glance, without history.
 */
final class Dashboard {
    /** The page the dashboard is on, relative to the repository's root. */
    static final String PAGE = "BENCHMARKS.md";
    /** Where the figures a row no longer holds go. */
    static final String HISTORY = "docs/benchmarks/history.md";
    static final String MACHINE_HEADER = "| machine | what it is |";
    static final String HEADING = "Dashboard";
    static final String HEADER = "| row | what | target | today | status | date | machine | section |";
    /** A cell's most visible characters: a row is read at a glance; the detail is in its section. */
    static final int CELL = 80;
    /** The statuses a row may have; the last only where the target is {@link #NONE} (a figure watched, not aimed at). */
    static final List<String> STATUSES = List.of("met", "not met", "—");
    static final String NONE = "—";

    private static final List<String> COLUMNS = Markdown.cells(HEADER);
    private static final int ROW = 0, TARGET = 2, TODAY = 3, STATUS = 4, DATE = 5, MACHINE = 6, SECTION = 7;
    private static final Pattern ROW_ID = Pattern.compile("<a id=\"([a-z0-9-]+)\"></a>\\1");
    private static final Pattern A_DATE = Pattern.compile("(?<![\\d-])\\d{4}-\\d{2}-\\d{2}(?![\\d-])");

    /** One row: its id, its line on the page, its today cell as a quote must hold it ({@link Markdown#normalised}), its status. */
    record Row(String id, int line, String today, String status) {}

    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final List<DocsCheck.Problem> problems = new ArrayList<>();

    private Dashboard() {}

    /** The rows read, by id, in the page's order (a row with a malformed id is not among them). */
    Map<String, Row> rows() {
        return rows;
    }

    /** What is wrong with the page's machine table and dashboard; empty when nothing is. */
    List<DocsCheck.Problem> problems() {
        return problems;
    }

    /** Reads BENCHMARKS.md's text: its machine labels, then its dashboard's rows, checking each. */
    static Dashboard read(String text) {
        Dashboard d = new Dashboard();
        String[] lines = Markdown.lines(text);
        boolean[] fenced = Markdown.fenced(lines);
        int heading = -1;
        for (int i = 0; i < lines.length && heading < 0; i++) {
            if (!fenced[i] && Markdown.headingLevel(lines[i]) == 2 && Markdown.headingOf(lines[i]).equals(HEADING)) heading = i;
        }
        Set<String> labels = d.machineLabels(lines, fenced, heading < 0 ? lines.length : heading);
        if (heading < 0) {
            d.problem(0, "no dashboard: a '## " + HEADING + "' heading and under it a table whose header is exactly '" + HEADER
                    + "' (the one source of the figures other pages quote)");
            return d;
        }
        int header = -1;
        for (int i = heading + 1; i < lines.length && header < 0; i++) {
            if (fenced[i]) continue;
            int level = Markdown.headingLevel(lines[i]);
            if (level > 0 && level <= 2) break;
            if (Markdown.isTableRow(lines[i])) header = i;
        }
        if (header < 0) {
            d.problem(heading + 1, "no table under '## " + HEADING + "': write the dashboard as a table whose header is exactly '" + HEADER + "'");
            return d;
        }
        if (!Markdown.cells(lines[header]).equals(COLUMNS)) {
            d.problem(header + 1, "the dashboard's header is not exactly '" + HEADER + "': write that header (the check and the quotes read its columns by position)");
            return d;
        }
        int first = header + 1 < lines.length && Markdown.isDelimiterRow(lines[header + 1]) ? header + 2 : header + 1;
        for (int i = first; i < lines.length && !fenced[i] && Markdown.isTableRow(lines[i]); i++) d.checkRow(i + 1, Markdown.cells(lines[i]), labels);
        return d;
    }

    /**
     * The labels of the machine table above the dashboard: a row names the machine it ran on by one
     * short label, defined once, instead of a phrase per row that drifts ("VM, loaded (a helper)").
     */
    private Set<String> machineLabels(String[] lines, boolean[] fenced, int end) {
        Set<String> labels = new LinkedHashSet<>();
        List<String> header = Markdown.cells(MACHINE_HEADER);
        int at = -1;
        for (int i = 0; i < end && at < 0; i++) {
            if (!fenced[i] && Markdown.isTableRow(lines[i]) && Markdown.cells(lines[i]).equals(header)) at = i;
        }
        if (at < 0) {
            problem(0, "no machine table above the dashboard: a table whose header is exactly '" + MACHINE_HEADER
                    + "', one row per machine label the dashboard uses");
            return labels;
        }
        int first = at + 1 < end && Markdown.isDelimiterRow(lines[at + 1]) ? at + 2 : at + 1;
        for (int i = first; i < end && !fenced[i] && Markdown.isTableRow(lines[i]); i++) {
            String label = Markdown.normalised(Markdown.cells(lines[i]).get(0));
            if (!label.isEmpty()) labels.add(label);
        }
        return labels;
    }

    /** Checks one dashboard row, at {@code line}, and keeps it when its id can be linked. */
    private void checkRow(int line, List<String> cells, Set<String> labels) {
        if (cells.size() != COLUMNS.size()) {
            problem(line, "row of " + cells.size() + " cells, not " + COLUMNS.size() + ": one cell per column of '" + HEADER + "'");
            return;
        }
        checkCells(line, cells);
        String status = Markdown.normalised(cells.get(STATUS));
        checkStatus(line, status, Markdown.normalised(cells.get(TARGET)));
        checkDate(line, Markdown.normalised(cells.get(DATE)));
        checkMachine(line, Markdown.normalised(cells.get(MACHINE)), labels);
        checkSection(line, cells.get(SECTION));
        String id = checkId(line, cells.get(ROW));
        if (id != null && !rows.containsKey(id)) rows.put(id, new Row(id, line, Markdown.normalised(cells.get(TODAY)), status));
    }

    /**
     * The row cell is {@code <a id="ID"></a>ID}: the anchor is what a quote links to, the visible ID
     * what a reader sees and types; unique, or a link would lead to the first of two figures.
     */
    private String checkId(int line, String cell) {
        Matcher m = ROW_ID.matcher(cell);
        if (!m.matches()) {
            problem(line, "row cell '" + cell + "' is not <a id=\"ID\"></a>ID with ID of a-z, 0-9 and '-': give the row an id to link to");
            return null;
        }
        String id = m.group(1);
        Row before = rows.get(id);
        if (before != null) problem(line, "row id '" + id + "' is also on line " + before.line() + ": give each row an id of its own");
        return id;
    }

    /**
     * Every cell at most {@link #CELL} visible characters, and no date but in the date cell: the
     * dashboard holds today's figure only; the detail goes to the section, the past to the history.
     */
    private void checkCells(int line, List<String> cells) {
        for (int c = 0; c < cells.size(); c++) {
            String shown = Markdown.visible(cells.get(c)).strip();
            int length = shown.codePointCount(0, shown.length());
            if (length > CELL) {
                problem(line, "'" + COLUMNS.get(c) + "' cell of " + length + " visible characters, over " + CELL + ": move the detail to the section");
            }
            Matcher date = A_DATE.matcher(shown);
            if (c != DATE && date.find()) {
                problem(line, "'" + COLUMNS.get(c) + "' cell holds the date " + date.group() + ": a row holds today's figure only; move earlier ones to " + HISTORY);
            }
        }
    }

    /** A status a reader and a quote can compare: met, not met, or — for a figure with no target. */
    private void checkStatus(int line, String status, String target) {
        if (!STATUSES.contains(status)) {
            problem(line, "status '" + status + "' is none of met, not met, " + NONE + ": write one of them (the detail goes to the section)");
        } else if (status.equals(NONE) && !target.equals(NONE)) {
            problem(line, "status " + NONE + " with the target '" + target + "': a row with a target is met or not met");
        }
    }

    /** The day of today's figure, YYYY-MM-DD: one form that sorts and cannot be read two ways. */
    private void checkDate(int line, String date) {
        boolean valid = date.matches("\\d{4}-\\d{2}-\\d{2}");
        if (valid) {
            try {
                LocalDate.parse(date);
            } catch (DateTimeParseException e) {
                valid = false;
            }
        }
        if (!valid) problem(line, "date '" + date + "' is not a day written YYYY-MM-DD: write the day of today's figure");
    }

    /** One machine label, defined in the machine table, so that what "quiet" or "loaded" means is said once. */
    private void checkMachine(int line, String machine, Set<String> labels) {
        if (!labels.contains(machine)) {
            problem(line, "machine '" + machine + "' is not a label of the machine table (" + String.join(", ", labels)
                    + "): name one label, defined in the table");
        }
    }

    /** The section cell links a section of this page, where the method, the command and the detail are. */
    private void checkSection(int line, String cell) {
        boolean linked = Markdown.linksIn(cell, line).stream().anyMatch(l -> l.target().startsWith("#") && l.target().length() > 1);
        if (!linked) problem(line, "section cell '" + cell + "' links no section of this page: link the section ([subject](#heading))");
    }

    private void problem(int line, String message) {
        problems.add(new DocsCheck.Problem(PAGE, line, message));
    }
}
