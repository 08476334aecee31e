package io.kairos.testbed.faults;

import io.kairos.schema.ResultStatus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every result of a fault run, tallied against what was sent: each scenario sent the ids
 * {@code prefix + 0} to {@code prefix + (count - 1)} (the load generator's {@code --id-prefix}), so
 * an id's scenario and its place in send order are read off the id itself, and one array slot per
 * id holds what its results said. A result whose id no scenario sent is counted as foreign.
 *
 * <p>Not thread-safe: fill it from one thread, then ask for {@link #report}s.
 */
public final class RunLedger {

    /** What one scenario sent: the ids {@code prefix0 .. prefix(count-1)}. */
    public record Sent(String scenario, String prefix, int count) {
        public Sent {
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(prefix, "prefix");
            if (prefix.isEmpty() || Character.isDigit(prefix.charAt(prefix.length() - 1))) {
                // Ids are the prefix and a decimal number: a prefix ending in a digit would make "a1" + "2" and "a" + "12" one id.
                throw new IllegalArgumentException("an id prefix must not be empty or end in a digit, got '" + prefix + "'");
            }
            if (count < 0) throw new IllegalArgumentException("count must be >= 0, got " + count);
        }
    }

    /** A fault injected at {@code atMicros} (wall clock, microseconds since the epoch) during a scenario. */
    public record Fault(String scenario, long atMicros, String label) {
        public Fault {
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(label, "label");
        }
    }

    private static final long NONE = Long.MIN_VALUE;

    /** The results of one scenario's ids, one slot per id. */
    private static final class Scenario {
        final Sent sent;
        final int[] copies;
        /** Bit {@code 1 << status.ordinal()} for every status seen. */
        final byte[] statuses;
        /** The status of the earliest-emitted result. */
        final byte[] firstStatus;
        final long[] firstEmitted;
        final long[] sentAt;
        final List<Fault> faults = new ArrayList<>();
        /** Per fault: the earliest emission of a result of a request sent after the fault. */
        long[] recoveredAt = new long[0];

        Scenario(Sent sent) {
            this.sent = sent;
            copies = new int[sent.count()];
            statuses = new byte[sent.count()];
            firstStatus = new byte[sent.count()];
            firstEmitted = new long[sent.count()];
            sentAt = new long[sent.count()];
            Arrays.fill(firstEmitted, NONE);
            Arrays.fill(sentAt, NONE);
        }
    }

    private final Map<String, Scenario> byPrefix = new HashMap<>();
    private final Map<String, Scenario> byName = new LinkedHashMap<>();
    private long foreign;
    private long results;

    public RunLedger(List<Sent> sent, List<Fault> faults) {
        for (Sent s : sent) {
            if (byName.containsKey(s.scenario())) throw new IllegalArgumentException("scenario '" + s.scenario() + "' is named twice");
            if (byPrefix.containsKey(s.prefix())) throw new IllegalArgumentException("id prefix '" + s.prefix() + "' is used by two scenarios");
            Scenario sc = new Scenario(s);
            byPrefix.put(s.prefix(), sc);
            byName.put(s.scenario(), sc);
        }
        for (Fault f : faults) {
            Scenario sc = byName.get(f.scenario());
            if (sc == null) throw new IllegalArgumentException("fault at " + f.atMicros() + " names scenario '" + f.scenario() + "', which sent nothing");
            sc.faults.add(f);
        }
        for (Scenario sc : byName.values()) {
            sc.faults.sort((a, b) -> Long.compare(a.atMicros(), b.atMicros()));
            sc.recoveredAt = new long[sc.faults.size()];
            Arrays.fill(sc.recoveredAt, NONE);
        }
    }

    /**
     * One result read from the results topic. {@code ingestedMicros} is when the job read the
     * request ({@link Long#MIN_VALUE} when the result does not say); {@code sentMicros} and
     * {@code emittedMicros} are the request's send time and the result's emission.
     */
    public void add(String requestId, ResultStatus status, long sentMicros, long ingestedMicros, long emittedMicros) {
        results++;
        int digits = requestId.length();
        while (digits > 0 && Character.isDigit(requestId.charAt(digits - 1))) digits--;
        Scenario sc = digits == requestId.length() || requestId.length() - digits > 10 ? null : byPrefix.get(requestId.substring(0, digits));
        long seq = sc == null ? -1 : Long.parseLong(requestId.substring(digits));
        if (sc == null || seq >= sc.sent.count() || (requestId.charAt(digits) == '0' && requestId.length() - digits > 1)) {
            foreign++;
            return;
        }
        int i = (int) seq;
        sc.copies[i]++;
        sc.statuses[i] |= (byte) (1 << status.ordinal());
        if (sc.firstEmitted[i] == NONE || emittedMicros < sc.firstEmitted[i]) {
            sc.firstEmitted[i] = emittedMicros;
            sc.firstStatus[i] = (byte) status.ordinal();
        }
        if (sc.sentAt[i] == NONE) sc.sentAt[i] = sentMicros;
        // Recovery: the first result of a request sent after the fault. Not any result emitted after
        // it: a job cut off from its broker still answers what it had read, and results of replayed
        // requests say nothing about new ones being served.
        for (int f = 0; f < sc.faults.size(); f++) {
            long at = sc.faults.get(f).atMicros();
            if (sentMicros > at && emittedMicros > at && (sc.recoveredAt[f] == NONE || emittedMicros < sc.recoveredAt[f])) {
                sc.recoveredAt[f] = emittedMicros;
            }
        }
    }

    /** Results read in all, foreign ones included. */
    public long results() {
        return results;
    }

    /** Results whose id no scenario sent. */
    public long foreign() {
        return foreign;
    }

    /** Ids of every scenario that have no result yet. */
    public long unanswered() {
        long n = 0;
        for (Scenario sc : byName.values()) for (int c : sc.copies) if (c == 0) n++;
        return n;
    }

    public List<String> scenarios() {
        return List.copyOf(byName.keySet());
    }

    /**
     * The figures of one scenario. Attainment is taken in windows of {@code windowMicros} by send
     * time, starting at each fault and ending at the next fault of the scenario (or its last send):
     * a request counts as met when its first result (the earliest emitted) is OK; a request with no
     * result counts as missed, at a send time placed between its neighbours' (ids are in send
     * order, see {@link #placedSendTimes}). Attainment recovery is the start of the first window from which every
     * window up to the horizon is at or above {@code target}.
     */
    public ScenarioReport report(String scenario, long windowMicros, double target) {
        return report(scenario, windowMicros, target, 0);
    }

    /**
     * The same, with each fault measured only up to {@code settleMicros} before the next one: a
     * request sent that close to the next fault may still be in flight when it strikes (a request
     * lives up to its SLO), so its fate tells of the next fault, not of the recovery from this one.
     */
    public ScenarioReport report(String scenario, long windowMicros, double target, long settleMicros) {
        return report(scenario, windowMicros, target, settleMicros, DEFAULT_PAUSE_MICROS);
    }

    /** A gap between results longer than this is a pause in service, unless told otherwise: 0.5 s. */
    public static final long DEFAULT_PAUSE_MICROS = 500_000;

    /**
     * The same, with the gap between results that counts as a pause in service: each fault's
     * <em>served again</em> is the end of the longest gap, if it is longer than {@code pauseMicros},
     * among the results of the requests sent after the fault (before its horizon), the fault itself
     * taken as the first; otherwise the first new result. A fault that stops the job only after a
     * while (a JobManager's death: its TaskManagers answer on until they notice) has its first new
     * result at once, and is served again only when the job is back.
     */
    public ScenarioReport report(String scenario, long windowMicros, double target, long settleMicros, long pauseMicros) {
        if (settleMicros < 0) throw new IllegalArgumentException("settle must be >= 0 us");
        if (pauseMicros <= 0) throw new IllegalArgumentException("pause must be > 0 us");
        Scenario sc = byName.get(scenario);
        if (sc == null) throw new IllegalArgumentException("no scenario '" + scenario + "'");
        if (windowMicros <= 0) throw new IllegalArgumentException("window must be > 0 us");
        int n = sc.sent.count();
        long lost = 0, duplicated = 0, contradictory = 0, answered = 0;
        for (int i = 0; i < n; i++) {
            if (sc.copies[i] == 0) lost++;
            else answered++;
            if (sc.copies[i] > 1) duplicated++;
            if (Integer.bitCount(sc.statuses[i] & 0xff) > 1) contradictory++;
        }
        long[] sentAt = placedSendTimes(sc.sentAt);
        long lastSent = NONE;
        for (long t : sentAt) if (t != NONE && t > lastSent) lastSent = t;
        long firstFault = sc.faults.isEmpty() ? Long.MAX_VALUE : sc.faults.get(0).atMicros();
        long beforeMet = 0, before = 0;
        for (int i = 0; i < n; i++) {
            if (sentAt[i] == NONE || sentAt[i] >= firstFault) continue;
            before++;
            if (met(sc, i)) beforeMet++;
        }
        List<FaultReport> faults = new ArrayList<>();
        for (int f = 0; f < sc.faults.size(); f++) {
            Fault fault = sc.faults.get(f);
            boolean last = f + 1 == sc.faults.size();
            long nextFault = last ? Long.MAX_VALUE : sc.faults.get(f + 1).atMicros();
            long horizon = last
                    ? (lastSent == NONE ? fault.atMicros() : lastSent + 1)
                    : Math.max(fault.atMicros(), nextFault - settleMicros);
            int windows = (int) Math.max(0, (horizon - fault.atMicros() + windowMicros - 1) / windowMicros);
            long[] total = new long[windows];
            long[] ok = new long[windows];
            for (int i = 0; i < n; i++) {
                long t = sentAt[i];
                if (t == NONE || t < fault.atMicros() || t >= horizon) continue;
                int w = (int) ((t - fault.atMicros()) / windowMicros);
                total[w]++;
                if (met(sc, i)) ok[w]++;
            }
            // Scanning back from the horizon: the earliest window from which none falls short.
            int from = -1;
            for (int w = windows - 1; w >= 0; w--) {
                if (total[w] == 0) continue; // nothing was sent then: no evidence either way
                if ((double) ok[w] / total[w] < target) break;
                from = w;
            }
            double worst = Double.NaN;
            for (int w = 0; w < windows; w++) {
                if (total[w] > 0) worst = Double.isNaN(worst) ? (double) ok[w] / total[w] : Math.min(worst, (double) ok[w] / total[w]);
            }
            Double attainmentRecovery = from < 0 ? null : from * windowMicros / 1e6;
            Double recovery = sc.recoveredAt[f] == NONE ? null : (sc.recoveredAt[f] - fault.atMicros()) / 1e6;
            // Only results out before the next fault: a request sent just before it is answered
            // after the next recovery, and its wait is that fault's pause, not this one's.
            long[] pause = longestPause(sc, fault.atMicros(), horizon, nextFault);
            Double servedAgain = null;
            double pauseSeconds = 0;
            if (pause != null && pause[1] > pauseMicros) {
                servedAgain = (pause[0] - fault.atMicros()) / 1e6;
                pauseSeconds = pause[1] / 1e6;
            } else if (recovery != null) {
                servedAgain = recovery;
            }
            faults.add(new FaultReport(fault, recovery, attainmentRecovery, worst, servedAgain, pauseSeconds));
        }
        return new ScenarioReport(scenario, n, answered, lost, duplicated, contradictory,
                before == 0 ? Double.NaN : (double) beforeMet / before, Collections.unmodifiableList(faults));
    }

    /**
     * The longest gap in the first results, out before {@code until}, of the requests sent after
     * {@code at} and before {@code horizon}, {@code at} taken as the first: {end of the gap, its
     * length}, or null when no such request has such a result.
     */
    private static long[] longestPause(Scenario sc, long at, long horizon, long until) {
        long[] emitted = new long[sc.sent.count()];
        int n = 0;
        for (int i = 0; i < sc.sent.count(); i++) {
            long sent = sc.sentAt[i];
            if (sent != NONE && sent > at && sent < horizon && sc.firstEmitted[i] > at && sc.firstEmitted[i] < until) emitted[n++] = sc.firstEmitted[i];
        }
        if (n == 0) return null;
        Arrays.sort(emitted, 0, n);
        long prev = at, end = emitted[0], longest = emitted[0] - at;
        for (int i = 0; i < n; i++) {
            if (emitted[i] - prev > longest) {
                longest = emitted[i] - prev;
                end = emitted[i];
            }
            prev = emitted[i];
        }
        return new long[]{end, longest};
    }

    private static boolean met(Scenario sc, int i) {
        return sc.copies[i] > 0 && sc.firstStatus[i] == (byte) ResultStatus.OK.ordinal();
    }

    /**
     * Each id's send time. An id with no result has none on record; ids are numbered in send order,
     * so it is placed between its nearest neighbours that have one, in proportion to its number
     * (before the first one or after the last one: at that one's time).
     */
    static long[] placedSendTimes(long[] sentAt) {
        long[] t = sentAt.clone();
        int prev = -1;
        for (int i = 0; i <= t.length; i++) {
            if (i < t.length && t[i] == NONE) continue;
            // A gap (prev, i) of ids without a send time, between two known ones (or an end).
            for (int j = prev + 1; j < i; j++) {
                if (prev < 0 && i == t.length) break; // no send time known at all
                if (prev < 0) t[j] = t[i];
                else if (i == t.length) t[j] = t[prev];
                else t[j] = t[prev] + Math.round((double) (t[i] - t[prev]) * (j - prev) / (i - prev));
            }
            prev = i;
        }
        return t;
    }

    /**
     * One scenario: ids sent, ids with at least one result, lost (none), duplicated (more than one),
     * contradictory (results with different statuses), the attainment of the requests sent before
     * its first fault (NaN without faults or requests before them), and each fault's figures.
     */
    public record ScenarioReport(String scenario, long sent, long answered, long lost, long duplicated, long contradictory,
                                 double attainmentBeforeFaults, List<FaultReport> faults) {}

    /**
     * One fault: seconds to the first result of a request sent after the fault (null: none
     * came), seconds until attainment stayed at or above the target (null: it never did before the
     * horizon, or nothing was sent after the fault), the worst window's attainment after it (NaN: no
     * window held a request), seconds until it was served again after its longest pause (the first
     * new result when there was none; null when that is) and that pause's length (0: none).
     */
    public record FaultReport(Fault fault, Double recoverySeconds, Double attainmentRecoverySeconds, double worstWindowAttainment,
                              Double servedAgainSeconds, double pauseSeconds) {}
}
