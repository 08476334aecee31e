package io.kairos.testbed.dist;

import org.apache.flink.client.ClientUtils;
import org.apache.flink.client.program.PackagedProgram;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.DefaultExecutorServiceLoader;

import java.io.File;
import java.util.Arrays;
import java.util.List;

/**
 * What {@link GettingStartedDistributionTest} runs for the page's {@code flink run [-d] JAR ARGS}: the
 * jar's program as {@code flink run --target local} runs it. Flink's own command line does this:
 * a {@link PackagedProgram} of the jar (its manifest's main class, in a child-first class loader of
 * the jar, over a class path that is Flink's), executed by {@link ClientUtils#executeProgram} with
 * the executor of its target; the {@code local} one starts a mini-cluster in this JVM and
 * submits the job to it, printing Flink's "Job has been submitted with JobID" line. So the jar is
 * run as a cluster runs it (its own classes, its bundled connector and Kafka client, the program's
 * arguments as the page gives them), with a mini-cluster where the page says "your cluster".
 *
 * <p>Attached, as Flink's {@code execution.attached}: this JVM is the cluster, and lives as long as
 * the job. {@code -d} is the test's script's: it starts this JVM in the background and returns once
 * the job is submitted. The JVM ends itself when the test's JVM ({@code kairos.test.parent}) is
 * gone, so that no cluster outlives its test.
 */
public final class FlinkRunStandIn {
    private FlinkRunStandIn() {}

    public static void main(String[] args) throws Exception {
        watchParent();
        List<String> all = Arrays.asList(args);
        if (all.isEmpty() || !all.get(0).equals("run")) throw new IllegalArgumentException("only `flink run [-d] JAR ARGS` is stood in for, got " + all);
        int i = 1;
        while (i < all.size() && all.get(i).startsWith("-")) {
            if (!all.get(i).equals("-d") && !all.get(i).equals("--detached")) {
                throw new IllegalArgumentException("flink run option " + all.get(i) + " is not stood in for: only -d");
            }
            i++;
        }
        if (i >= all.size()) throw new IllegalArgumentException("flink run: no jar");
        File jar = new File(all.get(i));
        String[] programArgs = all.subList(i + 1, all.size()).toArray(String[]::new);

        Configuration config = new Configuration();
        config.set(DeploymentOptions.TARGET, "local");
        config.set(DeploymentOptions.ATTACHED, true);
        config.set(PipelineOptions.JARS, List.of(jar.getAbsoluteFile().toURI().toURL().toString()));
        config.set(RestOptions.BIND_PORT, "0"); // not 8081: a real cluster of the same machine may have it
        PackagedProgram program = PackagedProgram.newBuilder().setJarFile(jar).setArguments(programArgs).setConfiguration(config).build();
        ClientUtils.executeProgram(new DefaultExecutorServiceLoader(), config, program, false, false);
    }

    private static void watchParent() {
        String parent = System.getProperty("kairos.test.parent");
        if (parent == null) return;
        Thread watch = new Thread(() -> {
            ProcessHandle handle = ProcessHandle.of(Long.parseLong(parent)).orElse(null);
            while (handle != null && handle.isAlive()) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        watch.setDaemon(true);
        watch.start();
    }
}
