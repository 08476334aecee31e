package io.kairos.core.scheduling;


import io.kairos.core.api.Internal;
import java.util.List;

/**
 * Every placement policy by the name the policy parameter {@code placement} selects it by, per
 * serving group or per model; {@code target_ongoing} sets the registry's (and {@code auto}'s)
 * {@code targetOngoingRequests}.
 */
@Internal
public final class Placements {
    /** Parameter: the placement policy (default {@code default}). */
    public static final String PLACEMENT = "placement";
    public static final String DEFAULT = "default";
    public static final List<String> NAMES = List.of(DEFAULT, ColocationPlacement.WITHOUT_QUEUING, ColocationPlacement.WITH_QUEUING, RegistryPlacement.NAME, AutoPlacement.NAME);

    private Placements() {}

    /** The placement policy {@code name} with the registry's target of outstanding batches. */
    public static PlacementPolicy create(String name, int targetOngoing) {
        return switch (name) {
            case DEFAULT -> PlacementPolicy.DEFAULT;
            case ColocationPlacement.WITHOUT_QUEUING -> new ColocationPlacement(false);
            case ColocationPlacement.WITH_QUEUING -> new ColocationPlacement(true);
            case RegistryPlacement.NAME -> new RegistryPlacement(targetOngoing);
            case AutoPlacement.NAME -> new AutoPlacement(targetOngoing);
            default -> throw new IllegalArgumentException("unknown placement '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }

    /**
     * The placement a group's or a model's parameters select: {@code placement} and
     * {@code target_ongoing}, the latter only with {@code registry} or {@code auto}.
     *
     * @throws IllegalArgumentException for an unknown placement, a bad target, or a target with a placement that has none
     */
    public static PlacementPolicy read(ParamReader params) {
        String name = params.oneOf(PLACEMENT, DEFAULT, NAMES);
        int target = params.positiveInt(RegistryPlacement.TARGET_ONGOING, RegistryPlacement.DEFAULT_TARGET_ONGOING);
        if (params.isSetHere(RegistryPlacement.TARGET_ONGOING) && !name.equals(RegistryPlacement.NAME) && !name.equals(AutoPlacement.NAME)) {
            throw params.bad(RegistryPlacement.TARGET_ONGOING, "set only with placement " + RegistryPlacement.NAME + " or " + AutoPlacement.NAME + ", whose parameter it is; placement is '" + name + "'");
        }
        return create(name, target);
    }
}
