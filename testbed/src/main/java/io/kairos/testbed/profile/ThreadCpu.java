package io.kairos.testbed.profile;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds of the process and of its JIT compiler, ONNX device and GC threads, from Linux's
 * {@code /proc/self/task} (the compiler's threads are invisible to the JVM's thread beans). What
 * {@code efficiency} divides the run's CPU by, and what {@code bench} leaves out of a path's CPU
 * per request (the compiler's).
 */
public record ThreadCpu(double total, double jit, double device, double gc) {
    private static final double TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

    /** Now; null where there is no such file system. */
    public static ThreadCpu read() {
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) return null;
        double total; // the process's, with the threads that ended
        try {
            total = cpuSeconds(Files.readString(Path.of("/proc/self/stat")));
        } catch (IOException | RuntimeException e) {
            return null;
        }
        double jit = 0, device = 0, gc = 0;
        for (File task : tasks) {
            try {
                String stat = Files.readString(task.toPath().resolve("stat"));
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                double seconds = cpuSeconds(stat);
                if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) jit += seconds;
                else if (name.startsWith("kairos-onnx-dev")) device += seconds;
                else if (name.startsWith("GC Thread") || name.startsWith("G1 ")) gc += seconds;
            } catch (IOException | RuntimeException e) {
                // A thread that ended meanwhile: its time is gone from the task list either way.
            }
        }
        return new ThreadCpu(total, jit, device, gc);
    }

    /** utime + stime of a {@code stat} line, in seconds (the fields after the name in parentheses). */
    private static double cpuSeconds(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }

    public ThreadCpu minus(ThreadCpu before) {
        return new ThreadCpu(total - before.total, jit - before.jit, device - before.device, gc - before.gc);
    }
}
