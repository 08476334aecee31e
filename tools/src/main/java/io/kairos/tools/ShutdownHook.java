package io.kairos.tools;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C during a command: asks the command to stop, then holds the JVM's exit until the command
 * has wound down (at most a few seconds), so that its summary is printed and its files are
 * complete. Removed again when the command ends normally.
 */
final class ShutdownHook implements AutoCloseable {
    private final Thread hook;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Runnable stop = () -> {};

    private ShutdownHook() {
        this.hook = new Thread(() -> {
            stop.run();
            try {
                done.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "kairos-shutdown");
    }

    /** Installs a hook that holds the exit until {@link #close}; what stops the command is set with {@link #onStop}. */
    static ShutdownHook install() {
        ShutdownHook h = new ShutdownHook();
        Runtime.getRuntime().addShutdownHook(h.hook);
        return h;
    }

    /** What to run on Ctrl-C: it must make the command return soon. */
    void onStop(Runnable stop) {
        this.stop = stop;
    }

    @Override
    public void close() {
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running and has just been released
        }
    }
}
