package io.kairos.testbed.experiment;

import picocli.CommandLine.Option;

import java.util.List;

/** The flags of {@code experiment herd} that shrink or widen its sweep. */
public class HerdOptions {
    @Option(names = "--devices", split = ",", paramLabel = "N", description = "The cluster sizes (default: 12,24,48; 96 takes several times as long as the three together).")
    List<Integer> devices;

    @Option(names = "--cv2", split = ",", paramLabel = "X", description = "The arrivals' CV² (default: 1,4,16,64).")
    List<Double> cv2s;

    @Option(names = "--loads", split = ",", paramLabel = "X", description = "The offered load as a share of the cluster's capacity (default: 0.7).")
    List<Double> loads;

    @Option(names = "--max-group", paramLabel = "G", description = "The most devices per group (default: N/3 within 4..16).")
    Integer maxGroup;

    @Option(names = "--time-limit-s", paramLabel = "S", description = "The solver's time limit per plan (default: 4).")
    Double timeLimitSeconds;
}
