package io.kairos.workload;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Per-minute invocation counts per function, in the form of the Azure Functions trace of 2019
 * (Shahrad et al., "Serverless in the Wild"): a CSV file per day with the header
 * {@code HashOwner,HashApp,HashFunction,Trigger,1,2,...,1440} and one row per function, the
 * invocations of minute 1 to 1440 of the day. A real file is {@linkplain #read read}; one with the
 * trace's character is made by {@link AzureLikeTrace}; either can be {@linkplain #write written}.
 *
 * <p>{@link #toWorkload} turns the trace into a {@link Workload} as the RL thesis does: each
 * function a load of its own, replaying its counts minute by minute, onto model instances.
 *
 * <p>The counts are one {@code int[]} per function (a day's 46,000 functions are 265 MB); they are
 * never modified, and the replays of {@link #toWorkload} share them.
 */
public final class AzureTrace {
    public static final int MINUTES_PER_DAY = 1440;
    public static final long MINUTE_MICROS = 60_000_000L;
    static final List<String> ID_COLUMNS = List.of("HashOwner", "HashApp", "HashFunction", "Trigger");

    /** The identity of a row: hashed owner, app and function names, and the trigger kind (http, timer, queue, ...). */
    public record Function(String owner, String app, String function, String trigger) {}

    private final List<Function> functions;
    private final int[][] counts;
    private final int minutes;
    private final long totalInvocations;

    /** Takes the arrays, does not copy them: the caller hands them over. */
    AzureTrace(List<Function> functions, int[][] counts, int minutes) {
        if (functions.size() != counts.length) throw new IllegalArgumentException(functions.size() + " functions but " + counts.length + " rows of counts");
        if (minutes < 1) throw new IllegalArgumentException("a trace needs at least one minute, got " + minutes);
        long total = 0;
        for (int f = 0; f < counts.length; f++) {
            if (counts[f].length != minutes) throw new IllegalArgumentException("function " + (f + 1) + " has " + counts[f].length + " minutes, not " + minutes);
            for (int c : counts[f]) {
                if (c < 0) throw new IllegalArgumentException("function " + (f + 1) + " has a negative count: " + c);
                total += c;
            }
        }
        this.functions = List.copyOf(functions);
        this.counts = counts;
        this.minutes = minutes;
        this.totalInvocations = total;
    }

    /** A trace of these functions and their per-minute counts (copied), every row {@code minutes} long. */
    public static AzureTrace of(List<Function> functions, int[][] counts, int minutes) {
        int[][] copy = new int[counts.length][];
        for (int f = 0; f < counts.length; f++) copy[f] = counts[f].clone();
        return new AzureTrace(functions, copy, minutes);
    }

    // ---- reading and writing the CSV ----

    /**
     * Reads a trace file. Plain CSV as the trace is published: no quoting, comma-separated, blank
     * lines skipped; any number of minute columns from 1 on (a day has 1440). Bad input is
     * reported in one line naming the file, line and column.
     *
     * @throws TraceException when the file cannot be read or is not a trace
     */
    public static AzureTrace read(Path csv) {
        try (BufferedReader in = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
            return read(in, csv.toString());
        } catch (IOException e) {
            throw new TraceException(csv + ": cannot read trace (" + e.getMessage() + ")");
        }
    }

    /** Reads a trace from {@code in}; {@code source} names it in errors. */
    public static AzureTrace read(BufferedReader in, String source) throws IOException {
        String header = in.readLine();
        if (header == null) throw new TraceException(source + ": empty file; expected the header " + headerExample());
        int minutes = readHeader(stripCr(header), source);
        List<Function> functions = new ArrayList<>();
        List<int[]> rows = new ArrayList<>();
        int lineNo = 1;
        for (String line; (line = in.readLine()) != null; ) {
            lineNo++;
            line = stripCr(line);
            if (line.isBlank()) continue;
            int[] row = new int[minutes];
            functions.add(readRow(line, row, source + ":" + lineNo));
            rows.add(row);
        }
        return new AzureTrace(functions, rows.toArray(int[][]::new), minutes);
    }

    private static String stripCr(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    private static String headerExample() {
        return String.join(",", ID_COLUMNS) + ",1,2,...," + MINUTES_PER_DAY;
    }

    /** Checks the header and returns its number of minute columns. */
    private static int readHeader(String header, String source) {
        String at = source + ":1: ";
        String[] names = header.split(",", -1);
        for (int c = 0; c < ID_COLUMNS.size(); c++) {
            String got = c < names.length ? names[c].trim() : "";
            if (!got.equals(ID_COLUMNS.get(c))) {
                throw new TraceException(at + "column " + (c + 1) + " should be '" + ID_COLUMNS.get(c) + "', got '" + got
                        + "'; expected the header " + headerExample());
            }
        }
        int minutes = names.length - ID_COLUMNS.size();
        if (minutes == 0) throw new TraceException(at + "no minute columns; expected the header " + headerExample());
        for (int m = 1; m <= minutes; m++) {
            String got = names[ID_COLUMNS.size() + m - 1].trim();
            if (!got.equals(Integer.toString(m))) {
                throw new TraceException(at + "column " + (ID_COLUMNS.size() + m) + " should be minute '" + m + "', got '" + got + "'");
            }
        }
        return minutes;
    }

    /**
     * Reads one row into {@code row}, scanning the line once without splitting it: a day's file
     * has 66 million counts.
     */
    private static Function readRow(String line, int[] row, String at) {
        int expected = ID_COLUMNS.size() + row.length;
        String[] ids = new String[ID_COLUMNS.size()];
        int column = 0;
        int start = 0;
        int n = line.length();
        while (true) {
            int end = line.indexOf(',', start);
            if (end < 0) end = n;
            if (column >= expected) {
                throw new TraceException(at + ": expected " + expected + " columns (4 ids and " + row.length + " minutes), got more");
            }
            if (column < ids.length) {
                String id = line.substring(start, end).trim();
                if (id.isEmpty() && column < 3) throw new TraceException(at + ": column " + (column + 1) + " (" + ID_COLUMNS.get(column) + ") is empty");
                ids[column] = id;
            } else {
                row[column - ids.length] = count(line, start, end, at, column);
            }
            column++;
            if (end == n) break;
            start = end + 1;
        }
        if (column != expected) {
            throw new TraceException(at + ": expected " + expected + " columns (4 ids and " + row.length + " minutes), got " + column);
        }
        return new Function(ids[0], ids[1], ids[2], ids[3]);
    }

    private static int count(String line, int start, int end, String at, int column) {
        while (start < end && line.charAt(start) == ' ') start++;
        while (end > start && line.charAt(end - 1) == ' ') end--;
        long v = 0;
        boolean ok = start < end;
        for (int i = start; i < end && ok; i++) {
            char ch = line.charAt(i);
            ok = ch >= '0' && ch <= '9' && v <= Integer.MAX_VALUE;
            v = v * 10 + (ch - '0');
        }
        if (ok && v <= Integer.MAX_VALUE) return (int) v;
        String text = line.substring(start, end);
        String where = at + ": column " + (column + 1) + " (minute " + (column - ID_COLUMNS.size() + 1) + "): count '" + text + "' ";
        if (text.startsWith("-") && text.length() > 1 && text.substring(1).chars().allMatch(Character::isDigit)) {
            throw new TraceException(where + "is negative");
        }
        if (ok || (!text.isEmpty() && text.chars().allMatch(Character::isDigit))) throw new TraceException(where + "is too large");
        throw new TraceException(where + "is not a whole number");
    }

    /** Writes the trace in the format {@link #read} reads, creating or replacing the file. */
    public void write(Path csv) {
        try (BufferedWriter out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
            write(out);
        } catch (IOException e) {
            throw new TraceException(csv + ": cannot write trace (" + e.getMessage() + ")");
        }
    }

    /** Writes the header and one line per function. */
    public void write(Writer out) throws IOException {
        StringBuilder line = new StringBuilder(String.join(",", ID_COLUMNS));
        for (int m = 1; m <= minutes; m++) line.append(',').append(m);
        out.write(line.append('\n').toString());
        for (int f = 0; f < counts.length; f++) {
            Function fn = functions.get(f);
            line.setLength(0);
            line.append(fn.owner()).append(',').append(fn.app()).append(',').append(fn.function()).append(',').append(fn.trigger());
            for (int c : counts[f]) line.append(',').append(c);
            out.write(line.append('\n').toString());
        }
    }

    // ---- what the trace holds ----

    public int functionCount() {
        return functions.size();
    }

    /** Minutes per function: 1440 for a day. */
    public int minutes() {
        return minutes;
    }

    public Function function(int f) {
        return functions.get(f);
    }

    /** Invocations of function {@code f} in minute {@code minute}, counted from 0 (the trace's column "1"). */
    public int count(int f, int minute) {
        return counts[f][minute];
    }

    /** A copy of function {@code f}'s per-minute counts. */
    public int[] minuteCounts(int f) {
        return counts[f].clone();
    }

    /** All invocations of function {@code f}. */
    public long invocations(int f) {
        long total = 0;
        for (int c : counts[f]) total += c;
        return total;
    }

    public long totalInvocations() {
        return totalInvocations;
    }

    /** Invocations of all functions in minutes {@code [fromMinute, fromMinute + minuteCount)}. */
    public long invocations(int fromMinute, int minuteCount) {
        checkWindow(fromMinute, minuteCount);
        long total = 0;
        for (int[] row : counts) {
            for (int m = fromMinute; m < fromMinute + minuteCount; m++) total += row[m];
        }
        return total;
    }

    /** Invocations per second over the whole trace. */
    public double meanRatePerSecond() {
        return totalInvocations * 1_000_000.0 / (minutes * MINUTE_MICROS);
    }

    /** Invocations per second over a window of minutes. */
    public double meanRatePerSecond(int fromMinute, int minuteCount) {
        return invocations(fromMinute, minuteCount) * 1_000_000.0 / (minuteCount * MINUTE_MICROS);
    }

    /** The {@code rateScale} of {@link #toWorkload} that makes this window's mean rate {@code targetRatePerSecond}. */
    public double rateScaleFor(double targetRatePerSecond, int fromMinute, int minuteCount) {
        ArrivalProcess.checkRate(targetRatePerSecond);
        double rate = meanRatePerSecond(fromMinute, minuteCount);
        if (rate == 0) throw new IllegalArgumentException("the trace has no invocations in minutes " + window(fromMinute, minuteCount) + " to scale");
        return targetRatePerSecond / rate;
    }

    /** Function {@code f}'s arrivals over a window, replayed minute by minute; the counts are shared, not copied. */
    public CountsReplay replay(int f, int fromMinute, int minuteCount, double rateScale) {
        checkWindow(fromMinute, minuteCount);
        return CountsReplay.window(counts[f], fromMinute, minuteCount, MINUTE_MICROS, 1).scaled(rateScale);
    }

    // ---- onto model instances ----

    /** {@link #toWorkload(List, double, double, int, int)} over the whole trace at its own rate. */
    public Workload toWorkload(List<String> modelInstances, double sloMs) {
        return toWorkload(modelInstances, sloMs, 1, 0, minutes);
    }

    /**
     * The trace as a workload, the RL thesis' way: function {@code f} becomes a load of model
     * instance {@code modelInstances.get(f % modelInstances.size())}, tenant its owner, replaying
     * its counts of minutes {@code [fromMinute, fromMinute + minuteCount)} ({@link CountsReplay}
     * at 60-second intervals, scaled by {@code rateScale}), every request with the same SLO. The
     * workload's time 0 is the window's start, and its arrivals end with the window.
     *
     * <p>Several functions share a model instance (46,000 functions onto 4,026 instances): they
     * stay separate loads of the same model. Functions without an invocation in the window are
     * left out, so load indices are not function indices; the mapping to instances is by function
     * index all the same, so a window does not move functions between instances.
     *
     * @throws IllegalArgumentException when no function is invoked in the window
     */
    public Workload toWorkload(List<String> modelInstances, double sloMs, double rateScale, int fromMinute, int minuteCount) {
        checkInstances(modelInstances);
        checkWindow(fromMinute, minuteCount);
        List<ModelLoad> loads = new ArrayList<>();
        for (int f = 0; f < counts.length; f++) {
            CountsReplay replay = CountsReplay.window(counts[f], fromMinute, minuteCount, MINUTE_MICROS, 1).scaled(rateScale);
            if (replay.totalCount() == 0) continue;
            loads.add(new ModelLoad(functions.get(f).owner(), modelInstances.get(f % modelInstances.size()), sloMs, replay));
        }
        return nonEmpty(loads, fromMinute, minuteCount);
    }

    /**
     * {@link #toWorkload(List, double, double, int, int)} with the functions of each instance
     * merged into one stream: the instance's count in a minute is the sum of its functions'
     * counts, placed uniformly in the minute as each function's are, so the arrivals are the same
     * in distribution; only the tenants (the functions' owners) are lost, every load has the
     * default tenant. A simulation then merges 4,026 streams rather than 46,000, which is what a
     * policy experiment wants; a per-tenant analysis wants {@link #toWorkload}.
     *
     * @throws IllegalArgumentException when no function is invoked in the window
     */
    public Workload toInstanceWorkload(List<String> modelInstances, double sloMs, double rateScale, int fromMinute, int minuteCount) {
        checkInstances(modelInstances);
        int[][] perInstance = instanceCounts(modelInstances.size(), fromMinute, minuteCount);
        List<ModelLoad> loads = new ArrayList<>();
        for (int i = 0; i < perInstance.length; i++) {
            CountsReplay replay = CountsReplay.window(perInstance[i], 0, minuteCount, MINUTE_MICROS, 1).scaled(rateScale);
            if (replay.totalCount() == 0) continue;
            loads.add(new ModelLoad(ModelLoad.DEFAULT_TENANT, modelInstances.get(i), sloMs, replay));
        }
        return nonEmpty(loads, fromMinute, minuteCount);
    }

    /**
     * The per-minute counts of each of {@code instances} model instances over a window, function
     * {@code f} counted for instance {@code f mod instances} as {@link #toInstanceWorkload} maps
     * them: row {@code i} is instance {@code i}'s, {@code minuteCount} long.
     */
    public int[][] instanceCounts(int instances, int fromMinute, int minuteCount) {
        if (instances < 1) throw new IllegalArgumentException("at least one model instance is needed");
        checkWindow(fromMinute, minuteCount);
        int[][] perInstance = new int[instances][minuteCount];
        for (int f = 0; f < counts.length; f++) {
            int[] sum = perInstance[f % instances];
            for (int m = 0; m < minuteCount; m++) sum[m] += counts[f][fromMinute + m];
        }
        return perInstance;
    }

    private static void checkInstances(List<String> modelInstances) {
        if (modelInstances == null || modelInstances.isEmpty()) throw new IllegalArgumentException("at least one model instance is needed");
    }

    private static Workload nonEmpty(List<ModelLoad> loads, int fromMinute, int minuteCount) {
        if (loads.isEmpty()) throw new IllegalArgumentException("no function of the trace is invoked in minutes " + window(fromMinute, minuteCount));
        return new Workload(loads);
    }

    /**
     * Names of {@code copies} instances of each model, model by model: {@code resnet50#0001} ..
     * {@code resnet50#0066}, then the next model's. The RL thesis serves 61 models x 66 copies =
     * 4,026 instances.
     */
    public static List<String> modelInstances(List<String> models, int copies) {
        if (copies < 1) throw new IllegalArgumentException("copies must be at least 1, got " + copies);
        List<String> names = new ArrayList<>(models.size() * copies);
        for (String model : models) {
            for (int c = 1; c <= copies; c++) names.add(String.format(Locale.ROOT, "%s#%04d", model, c));
        }
        return names;
    }

    /** The model an instance name of {@link #modelInstances} is a copy of: {@code resnet50} for {@code resnet50#0007}. */
    public static String baseModel(String instance) {
        int hash = instance.lastIndexOf('#');
        return hash < 0 ? instance : instance.substring(0, hash);
    }

    private void checkWindow(int fromMinute, int minuteCount) {
        if (fromMinute < 0 || minuteCount < 1 || fromMinute > minutes - minuteCount) {
            throw new IllegalArgumentException("minutes " + window(fromMinute, minuteCount) + " are not a window of the trace's " + minutes + " minutes");
        }
    }

    private static String window(int fromMinute, int minuteCount) {
        return "[" + fromMinute + ", " + ((long) fromMinute + minuteCount) + ")";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "azure trace: %d functions x %d minutes, %d invocations (%.1f/s)",
                functions.size(), minutes, totalInvocations, meanRatePerSecond());
    }

    /** A trace file that cannot be read; the message is one line naming the file, line and column. */
    public static final class TraceException extends IllegalArgumentException {
        public TraceException(String message) {
            super(message);
        }
    }
}
