package io.kairos.tools.options;

import io.kairos.workload.ArrivalSpec;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** How each load's requests are spaced: {@code demo}, {@code loadgen}. */
public final class ArrivalsOption {
    @Option(names = "--arrivals", paramLabel = "PROCESS",
            description = "How each load's requests are spaced: poisson, fixed, gamma:cv2=N (Gamma gaps with this squared coefficient of variation) "
                    + "or mmpp:cv2=N (bursts: a two-state Markov-modulated Poisson process); default: ${DEFAULT-VALUE}.")
    public String arrivals = "poisson";

    /** The arrival process, or a one-line error naming the flag. */
    public ArrivalSpec parse(CommandLine cl) {
        try {
            return ArrivalSpec.parse(arrivals);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--arrivals: " + e.getMessage());
        }
    }
}
