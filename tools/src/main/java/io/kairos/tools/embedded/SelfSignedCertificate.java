package io.kairos.tools.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed TLS certificate for a broker on loopback, made with the running JDK's
 * {@code keytool}: the key and certificate in a PKCS12 keystore for the broker, and the certificate
 * alone in a PKCS12 truststore for its clients. Valid for {@code 127.0.0.1} and {@code localhost}
 * (subject alternative names), so that clients keep verifying the host name, as they do by default.
 */
final class SelfSignedCertificate {
    private SelfSignedCertificate() {}

    static void make(Path keystore, Path truststore, String password) {
        try {
            Files.createDirectories(keystore.getParent());
            Files.createDirectories(truststore.getParent());
            Path certificate = keystore.resolveSibling("broker.pem");
            keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "7",
                    "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                    "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", password, "-keypass", password);
            keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore.toString(), "-storetype", "PKCS12",
                    "-storepass", password, "-file", certificate.toString());
            keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(),
                    "-keystore", truststore.toString(), "-storetype", "PKCS12", "-storepass", password);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " did not finish in 60 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("keytool " + args[0] + " failed (" + p.exitValue() + "): " + new String(output, StandardCharsets.UTF_8).strip());
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
