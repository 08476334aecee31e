package io.kairos.testbed.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code chromium}, headless, for tests of a page as a browser shows it: the DOM after the
 * page's scripts ran ({@code --dump-dom}) or a screenshot of it, with each run in a profile of its own.
 */
final class HeadlessChromium {
    private final Path executable;
    private final Path profiles;
    private int runs;

    private HeadlessChromium(Path executable, Path profiles) {
        this.executable = executable;
        this.profiles = profiles;
    }

    /** Chromium from the PATH, if installed; its profiles under {@code profiles}. */
    static Optional<HeadlessChromium> find(Path profiles) {
        String path = System.getenv("PATH");
        if (path == null) return Optional.empty();
        for (String dir : path.split(java.io.File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) return Optional.of(new HeadlessChromium(candidate, profiles));
            }
        }
        return Optional.empty();
    }

    /**
     * The DOM of {@code url} once the page has loaded and its timers have had
     * {@code virtualTimeMs} of virtual time (a page that fetches every second gets its fetches
     * answered within it).
     */
    String dumpDom(String url, int virtualTimeMs) throws IOException, InterruptedException {
        Path profile = Files.createDirectories(profiles.resolve("run-" + (++runs)));
        Path dom = profile.resolve("dom.html");
        run(profile, url, dom, virtualTimeMs, "--dump-dom", url);
        return Files.readString(dom, StandardCharsets.UTF_8);
    }

    /**
     * A PNG of {@code url} in a window of {@code width} by {@code height} pixels, taken as
     * {@link #dumpDom} reads the DOM, written to {@code png}.
     */
    void screenshot(String url, int virtualTimeMs, int width, int height, Path png) throws IOException, InterruptedException {
        Path profile = Files.createDirectories(profiles.resolve("run-" + (++runs)));
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.deleteIfExists(png);
        run(profile, url, profile.resolve("stdout.txt"), virtualTimeMs, "--hide-scrollbars", "--window-size=" + width + "," + height,
                "--screenshot=" + png.toAbsolutePath(), url);
        if (!Files.isRegularFile(png)) throw new IllegalStateException("chromium wrote no screenshot of " + url + " to " + png);
    }

    private void run(Path profile, String url, Path out, int virtualTimeMs, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--headless", "--disable-gpu", "--no-sandbox",
                "--no-first-run", "--user-data-dir=" + profile, "--virtual-time-budget=" + virtualTimeMs));
        command.addAll(List.of(arguments));
        Path errors = profile.resolve("stderr.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(errors.toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("chromium did not end within 30 s on " + url);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("chromium exited with " + p.exitValue() + " on " + url + ": " + Files.readString(errors));
        }
    }
}
