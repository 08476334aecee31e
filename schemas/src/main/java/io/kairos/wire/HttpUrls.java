package io.kairos.wire;

import java.net.URI;
import java.net.URISyntaxException;

/** The one check of an HTTP address given on a command line or in a config: the schema registry's, Flink's REST API's. */
public final class HttpUrls {
    private HttpUrls() {}

    /**
     * Whether {@code url} is {@code http://} or {@code https://} with a host.
     *
     * @throws IllegalArgumentException {@code not a URL: ...} (credentials masked) when it does not parse
     */
    public static boolean withHost(String url) {
        try {
            URI uri = new URI(url);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: " + Secrets.maskUris(url) + " (" + e.getReason() + ")");
        }
    }
}
