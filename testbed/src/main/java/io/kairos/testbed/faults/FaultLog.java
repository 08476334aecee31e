package io.kairos.testbed.faults;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The faults file the fault suite writes, one fault a line: {@code SCENARIO EPOCH_MICROS LABEL...}
 * (the label may hold spaces); blank lines and lines starting with {@code #} are skipped.
 */
public final class FaultLog {
    private FaultLog() {}

    /** The faults in {@code lines}; a malformed line fails with its number. */
    public static List<RunLedger.Fault> parse(List<String> lines) {
        List<RunLedger.Fault> faults = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] parts = line.split("\\s+", 3);
            long at;
            try {
                at = parts.length < 2 ? -1 : Long.parseLong(parts[1]);
            } catch (NumberFormatException e) {
                at = -1;
            }
            if (at <= 0) throw new IllegalArgumentException("line " + (i + 1) + ": expected 'SCENARIO EPOCH_MICROS LABEL', got '" + line + "'");
            faults.add(new RunLedger.Fault(parts[0], at, parts.length > 2 ? parts[2] : "fault"));
        }
        return faults;
    }

    static List<RunLedger.Fault> read(CommandLine cl, Path file) {
        try {
            return parse(Files.readAllLines(file));
        } catch (IOException e) {
            throw new ParameterException(cl, "--faults: cannot read " + file + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, "--faults: " + file + ", " + e.getMessage());
        }
    }
}
