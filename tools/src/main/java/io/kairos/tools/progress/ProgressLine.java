package io.kairos.tools.progress;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarRenderer;
import me.tongfei.progressbar.ProgressState;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The line a command's progress bar draws, fitted to an 80-column terminal: the task and its
 * percentage, a bar when there is room, then fields (a count, a rate, what the command reports
 * live) separated by {@value #SEPARATOR}. Too little room drops the bar first, then fields from the
 * right, never a field in the middle. The progress bar library's own line ran its extra message
 * into the speed ({@code 70.4 req/slag<=46.5ms}) and outgrew the terminal.
 */
public final class ProgressLine implements ProgressBarRenderer {

    /** One short of 80: a terminal that wraps at the last column would scroll on every redraw. */
    public static final int WIDTH = 79;
    public static final String SEPARATOR = " | ";
    private static final int MIN_BAR = 10;
    private static final int MAX_BAR = 30;

    private final Function<ProgressState, List<String>> fields;

    /**
     * @param fields the leading fields of a state (a count, a rate); the bar's extra message, split at
     *               {@link #SEPARATOR}, follows them
     */
    public ProgressLine(Function<ProgressState, List<String>> fields) {
        this.fields = fields;
    }

    /** A progress bar that draws this line, a few times a second. */
    public static ProgressBar bar(String task, long max, Function<ProgressState, List<String>> fields) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(Math.max(1, max))
                .setUpdateIntervalMillis(250).setRenderer(new ProgressLine(fields)).build();
    }

    /** Fields for a bar's extra message, joined so that the line can drop them one by one. */
    public static String extra(String... fields) {
        return String.join(SEPARATOR, fields);
    }

    @Override
    public String render(ProgressState state, int maxLength) {
        List<String> all = new ArrayList<>(fields.apply(state));
        String extra = state.getExtraMessage();
        if (extra != null && !extra.isBlank()) all.addAll(Arrays.asList(extra.split(Pattern.quote(SEPARATOR))));
        int width = maxLength > 0 ? Math.min(maxLength, WIDTH) : WIDTH;
        return format(state.getTaskName(), state.getNormalizedProgress(), all, width);
    }

    /** The line for a task {@code fraction} done (0 to 1), in at most {@code width} characters. */
    public static String format(String task, double fraction, List<String> fields, int width) {
        double f = Double.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
        String head = String.format(Locale.ROOT, "%s %3d%%", task, (int) Math.floor(f * 100));
        List<String> shown = fields.stream().filter(s -> s != null && !s.isBlank()).map(String::strip).toList();
        for (int k = shown.size(); k >= 0; k--) {
            String tail = String.join(SEPARATOR, shown.subList(0, k));
            int barRoom = width - head.length() - 3 - (tail.isEmpty() ? 0 : 1 + tail.length());
            if (barRoom >= MIN_BAR) {
                return head + " [" + bar(f, Math.min(barRoom, MAX_BAR)) + "]" + (tail.isEmpty() ? "" : " " + tail);
            }
            String line = tail.isEmpty() ? head : head + SEPARATOR + tail;
            if (line.length() <= width) return line;
        }
        return head.length() <= width ? head : head.substring(0, width);
    }

    private static String bar(double fraction, int length) {
        int full = (int) Math.floor(fraction * length);
        StringBuilder b = new StringBuilder(length);
        b.append("=".repeat(full));
        if (full < length) b.append('>').append(" ".repeat(length - full - 1));
        return b.toString();
    }

    /** {@code 3,520/7,800 req}: steps done of the total. */
    public static String count(ProgressState s, String unit) {
        return String.format(Locale.ROOT, "%,d/%,d %s", s.getCurrent(), s.getMax(), unit);
    }

    /** {@code 70.4 req/s}: steps per second since the start. */
    public static String rate(ProgressState s, String unit) {
        double seconds = s.getElapsedAfterStart().toNanos() / 1e9;
        if (seconds <= 0) return "";
        return String.format(Locale.ROOT, "%.1f %s", (s.getCurrent() - s.getStart()) / seconds, unit);
    }

    /** {@code 0:12 left}: the time to the end at the rate so far. */
    public static String remaining(ProgressState s) {
        long done = s.getCurrent() - s.getStart();
        if (done <= 0) return "";
        Duration left = s.getElapsedAfterStart().multipliedBy(Math.max(0, s.getMax() - s.getCurrent())).dividedBy(done);
        return String.format(Locale.ROOT, "%d:%02d left", left.toMinutes(), left.toSecondsPart());
    }
}
