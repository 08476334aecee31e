package io.kairos.testbed.fidelity;

import io.kairos.core.plan.ServingPlan;
import io.kairos.schema.ControlDecision;
import io.kairos.schema.DevicePlacement;
import io.kairos.schema.SetPlacement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A mid-run placement change of the fidelity experiment: a {@code SetPlacement} for serving group
 * {@code default}, sent to the job's control topic at a given second of the measured run and
 * replayed at the same instant in the simulator. Written {@code SECONDS:DEVICE=MODEL+MODEL/...},
 * e.g. {@code 30:0=resnet50+googlenet/1=mlp}.
 */
record PlacementChange(double atSeconds, Map<Integer, List<String>> devices) {

    /**
     * @param deviceCount the devices of the run, 0 to this minus one
     * @param models      the models the run serves: each must stay on some device
     * @throws IllegalArgumentException naming what is wrong with {@code spec}
     */
    static PlacementChange parse(String spec, int deviceCount, Collection<String> models, int durationSeconds) {
        String where = "placement change '" + spec + "': ";
        int colon = spec.indexOf(':');
        if (colon < 0) throw new IllegalArgumentException(where + "expected SECONDS:DEVICE=MODEL+MODEL/..., e.g. 30:0=resnet50/1=mlp");
        double at;
        try {
            at = Double.parseDouble(spec.substring(0, colon).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + "time '" + spec.substring(0, colon) + "' is not a number of seconds");
        }
        if (!(at > 0 && at < durationSeconds)) {
            throw new IllegalArgumentException(where + "time must be inside the measured run, between 0 and " + durationSeconds + " s, got " + at);
        }
        Map<Integer, List<String>> devices = new LinkedHashMap<>();
        for (String part : spec.substring(colon + 1).split("/")) {
            int eq = part.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException(where + "device part '" + part + "' is not DEVICE=MODEL+MODEL");
            int device;
            try {
                device = Integer.parseInt(part.substring(0, eq).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + "device '" + part.substring(0, eq) + "' is not a number");
            }
            if (device < 0 || device >= deviceCount) {
                throw new IllegalArgumentException(where + "device " + device + " does not exist: the run has devices 0.." + (deviceCount - 1));
            }
            if (devices.containsKey(device)) throw new IllegalArgumentException(where + "device " + device + " is given twice");
            List<String> held = new ArrayList<>();
            for (String m : part.substring(eq + 1).split("\\+")) {
                String model = m.trim();
                if (!models.contains(model)) throw new IllegalArgumentException(where + "model '" + model + "' is not in the workload " + models);
                held.add(model);
            }
            devices.put(device, List.copyOf(held));
        }
        for (String model : models) {
            if (devices.values().stream().noneMatch(held -> held.contains(model))) {
                throw new IllegalArgumentException(where + "no device holds model '" + model + "' of the workload");
            }
        }
        return new PlacementChange(at, Collections.unmodifiableMap(new TreeMap<>(devices)));
    }

    long atMicros() {
        return Math.round(atSeconds * 1e6);
    }

    /** The decision as the job reads it from its control topic. */
    ControlDecision decision(long version, long issuedAtMicros) {
        List<DevicePlacement> placed = new ArrayList<>();
        devices.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> placed.add(DevicePlacement.newBuilder().setDevice(e.getKey()).setModels(e.getValue()).build()));
        return ControlDecision.newBuilder().setVersion(version).setIssuedAtMicros(issuedAtMicros).setIssuedBy("kairos-fidelity")
                .setAction(SetPlacement.newBuilder().setGroup(ServingPlan.DEFAULT_GROUP).setDevices(placed).build())
                .build();
    }
}
