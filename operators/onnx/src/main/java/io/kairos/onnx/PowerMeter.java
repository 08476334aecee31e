package io.kairos.onnx;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

/**
 * The board power of a device, in watts, where it can be read: a GPU's through
 * {@code nvidia-smi --query-gpu=power.draw}. A CPU, or a machine without {@code nvidia-smi}, has
 * none ({@link #NONE}), and what is measured with it has no energy: unknown, not zero.
 */
public interface PowerMeter {

    /** One reading, in W; empty when it cannot be read. */
    OptionalDouble watts();

    /** No power reading: the CPU, or a GPU whose driver tools are absent. */
    PowerMeter NONE = OptionalDouble::empty;

    /** {@code nvidia-smi} for GPU {@code index} when it is on the PATH and answers; {@link #NONE} for the CPU ({@code index} below 0) or else. */
    static PowerMeter forDevice(int gpuIndex) {
        if (gpuIndex < 0 || !onPath("nvidia-smi")) return NONE;
        PowerMeter smi = () -> nvidiaSmi(gpuIndex);
        return smi.watts().isPresent() ? smi : NONE;
    }

    /**
     * {@code nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits -i N}: one number of
     * watts, or {@code [N/A]} on boards that do not report it.
     */
    private static OptionalDouble nvidiaSmi(int gpuIndex) {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=power.draw", "--format=csv,noheader,nounits", "-i", Integer.toString(gpuIndex))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) return OptionalDouble.empty();
            return parseWatts(out);
        } catch (IOException e) {
            return OptionalDouble.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalDouble.empty();
        }
    }

    /** The first line of {@code nvidia-smi}'s answer as watts; empty for {@code [N/A]}, an error or nothing. */
    static OptionalDouble parseWatts(String answer) {
        String line = answer.strip().lines().findFirst().orElse("").strip();
        try {
            double w = Double.parseDouble(line);
            return Double.isFinite(w) && w >= 0 ? OptionalDouble.of(w) : OptionalDouble.empty();
        } catch (NumberFormatException e) {
            return OptionalDouble.empty();
        }
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) return false;
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) return true;
        }
        return false;
    }
}
