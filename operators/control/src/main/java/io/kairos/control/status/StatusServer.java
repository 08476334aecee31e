package io.kairos.control.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Serves the status page over HTTP with the JDK's own server: {@code GET /} the page
 * ({@link StatusPage}), {@code GET /api/status} the same snapshot as JSON ({@link StatusJson});
 * anything else is a 404, any other method a 405. Each request takes a fresh snapshot.
 *
 * <p>The page may hold only its own inline script and style and fetch only from here (a
 * Content-Security-Policy with a nonce per response), so that a name that slipped through the
 * escaping still could not run as a script.
 */
public final class StatusServer implements AutoCloseable {
    private static final SecureRandom NONCES = new SecureRandom();

    private final HttpServer server;
    private final ExecutorService executor;
    private final Supplier<StatusSnapshot> status;

    /**
     * Starts serving on {@code address} (port 0: any free port, see {@link #address()}).
     *
     * @throws IOException if the address cannot be bound (in use, not an address of this host)
     */
    public StatusServer(InetSocketAddress address, Supplier<StatusSnapshot> status) throws IOException {
        this.status = status;
        this.server = HttpServer.create(address, 0);
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "kairos-status-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::page);
        server.createContext("/api/status", this::api);
        server.start();
    }

    /** The address served, with the port bound. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private void page(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!path.equals("/") && !path.equals("/index.html")) {
            send(exchange, 404, "text/plain", "not found: " + path + " (the page is /, its data /api/status)\n", null);
            return;
        }
        if (!allowed(exchange)) return;
        byte[] random = new byte[16];
        NONCES.nextBytes(random);
        String nonce = Base64.getEncoder().encodeToString(random);
        String html = StatusPage.html(status.get(), nonce);
        send(exchange, 200, "text/html", html, "default-src 'none'; script-src 'nonce-" + nonce + "'; style-src 'unsafe-inline'; "
                + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    }

    private void api(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestURI().getPath().equals("/api/status")) {
            send(exchange, 404, "text/plain", "not found: " + exchange.getRequestURI().getPath() + "\n", null);
            return;
        }
        if (!allowed(exchange)) return;
        send(exchange, 200, "application/json", StatusJson.of(status.get()), "default-src 'none'");
    }

    private static boolean allowed(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (method.equals("GET") || method.equals("HEAD")) return true;
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain", method + " is not allowed: this server only shows\n", null);
        return false;
    }

    private static void send(HttpExchange exchange, int code, String type, String body, String contentSecurityPolicy) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        var headers = exchange.getResponseHeaders();
        headers.set("Content-Type", type + "; charset=utf-8");
        headers.set("Cache-Control", "no-store");
        headers.set("X-Content-Type-Options", "nosniff");
        if (contentSecurityPolicy != null) headers.set("Content-Security-Policy", contentSecurityPolicy);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(code, head ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            if (!head) out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
