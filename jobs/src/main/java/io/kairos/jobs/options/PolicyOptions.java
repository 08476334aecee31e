package io.kairos.jobs.options;

import io.kairos.core.scheduling.policy.Policies;
import io.kairos.jobs.config.ServingConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/** The scheduling policy of every serving group and its parameters: {@code serve}, {@code demo}, {@code fidelity}. */
public final class PolicyOptions {
    @Option(names = "--policy", description = "Scheduling policy: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).", completionCandidates = Names.class)
    public String policy = ServingConfig.DEFAULTS.policy;

    @Option(names = "--policy-param", paramLabel = "KEY=VALUE", description = "Policy parameter, repeatable, e.g. lookahead_ms=5, max_batch=8, max_queue_delay_ms=2, shed=false.")
    public Map<String, String> params = new LinkedHashMap<>(ServingConfig.DEFAULTS.policyParams);

    /** The job's default policy ({@link ServingConfig}). */
    public PolicyOptions() {
    }

    /** Another default policy, for a command whose purpose calls for it (the demo runs Kairos' own). */
    public PolicyOptions(String defaultPolicy) {
        this.policy = defaultPolicy;
    }

    /**
     * Fails with a one-line message if the policy is not a known one, or a parameter is one it does
     * not know or has a bad value: read as the policy will read it, before anything starts. The
     * job's configuration's own check, for a command that runs the policy elsewhere too.
     */
    public void check(CommandLine cl) {
        ServingConfig.Builder config = ServingConfig.builder();
        applyTo(config);
        ConfigFlags.build(config, cl);
    }

    /** Puts the policy and its parameters into a job's configuration, whose build checks them. */
    public void applyTo(ServingConfig.Builder config) {
        config.policy = policy;
        config.policyParams = new LinkedHashMap<>(params);
    }

    static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Policies.names().iterator();
        }
    }
}
