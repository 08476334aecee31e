package io.kairos.jobs;

import org.apache.flink.api.common.JobID;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.client.program.StreamContextEnvironment;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

import java.util.List;

/**
 * Submits the serving job to a highly available session cluster as a compiled job graph.
 *
 * <p>Why: Flink 2.0's session executor submits the stream graph, the JobManager compiles it into a
 * job graph and its HA services keep the stream graph. A standby JobManager that takes over after
 * the leader's death therefore compiles the job again before it can restore it: on the HA
 * cluster's 2 cores, seconds of the failover, in a cold JVM that has never run the type
 * extraction and graph generation that compiling is. Compiled here, on the client, the HA services
 * keep the job graph, and the standby goes straight from reading it back to restoring the
 * checkpoint. Everything else is what {@code flink run} does: the same configuration (the jars,
 * the savepoint to restore from, the cluster's address, found through the HA services), the same
 * job graph generator, and the line it prints with the job's id.
 *
 * <p>Where the cluster's Flink processes have the job's classes on their own class path ({@code
 * infra/cluster up --ha} puts the job jar there) and {@code flink run} is told so with {@code
 * -Dkairos.job-classes-on-cluster=true}, the job graph goes without the jar. A job's own jar is
 * loaded by a class loader of the job's that each TaskManager makes afresh for every job master:
 * after a failover the tasks start in code that is cold again, and the standby first copies the
 * jar (tens of MB) from the HA storage into its blob store and hashes it. Without a jar the classes are
 * the processes' own, loaded and compiled once, and a failover or a restart finds them warm.
 *
 * <p>Anywhere else (a mini-cluster, a cluster without HA services, a target other than a remote
 * session) the job is executed as usual.
 */
public final class CompiledSubmission {
    /** Set by whoever submits: the cluster's processes have this very jar's classes on their class path. */
    public static final ConfigOption<Boolean> JOB_CLASSES_ON_CLUSTER = ConfigOptions.key("kairos.job-classes-on-cluster")
            .booleanType().defaultValue(false)
            .withDescription("The cluster's Flink processes have the job jar's classes on their class path: submit the job graph without the jar.");

    private CompiledSubmission() {}

    /** Whether {@code env} is {@code flink run}'s, against a remote session cluster with HA services. */
    static boolean applies(StreamExecutionEnvironment env) {
        if (!(env instanceof StreamContextEnvironment)) return false;
        ReadableConfig config = env.getConfiguration();
        return "remote".equals(config.get(DeploymentOptions.TARGET))
                && !"NONE".equalsIgnoreCase(config.get(HighAvailabilityOptions.HA_MODE));
    }

    /**
     * The job graph of the job built in {@code env}, with the jars {@code flink run} was given, or
     * none where the cluster has their classes ({@link #JOB_CLASSES_ON_CLUSTER}).
     */
    static JobGraph jobGraph(StreamExecutionEnvironment env, String jobName) throws Exception {
        Configuration config = Configuration.fromMap(env.getConfiguration().toMap());
        if (config.get(JOB_CLASSES_ON_CLUSTER)) config.set(PipelineOptions.JARS, List.of());
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(jobName);
        // The user-code class loader of `flink run` (the job jar's): the graph's operators are its classes.
        // Flink 2.2 has no getJobGraph of a pipeline: the stream graph takes the configuration's jars,
        // classpaths and savepoint settings, and compiles to a job graph that leaves the jars behind
        // (2.2's client uploads them from the stream graph), so they are carried over here.
        StreamGraph configured = PipelineExecutorUtils.getStreamGraph(graph, config);
        JobGraph jobGraph = configured.getJobGraph(Thread.currentThread().getContextClassLoader());
        configured.getUserJars().forEach(jobGraph::addJar);
        return jobGraph;
    }

    /** Runs the job built in {@code env}: compiled and submitted where {@link #applies}, else executed. */
    public static void execute(StreamExecutionEnvironment env, String jobName) throws Exception {
        if (!applies(env)) {
            env.execute(jobName);
            return;
        }
        Configuration config = Configuration.fromMap(env.getConfiguration().toMap());
        boolean classesOnCluster = config.get(JOB_CLASSES_ON_CLUSTER);
        JobGraph jobGraph = jobGraph(env, jobName);
        try (RestClusterClient<StandaloneClusterId> client = new RestClusterClient<>(config, StandaloneClusterId.getInstance())) {
            JobID id = client.submitJob(jobGraph).get();
            // The words flink run prints for a detached job: scripts read the id from them.
            System.out.println("Job has been submitted with JobID " + id + " (a compiled job graph: a standby JobManager restores it without compiling it again"
                    + (classesOnCluster ? "; the job's classes are the cluster's own, no jar went with it)" : ")"));
        }
    }
}
