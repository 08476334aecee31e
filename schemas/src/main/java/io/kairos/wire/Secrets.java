package io.kairos.wire;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What Kairos must never write out as it is: the values of Kafka client properties that hold a
 * credential, and the user information of a URI ({@code s3://key:secret@bucket/models}). Whatever
 * Kairos prints or logs about its configuration, and every message that names a model repository,
 * passes through here first.
 */
public final class Secrets {
    private Secrets() {}

    /** What stands in for a secret. */
    public static final String MASK = "******";

    /** Parts of a key that say its value is a credential (compared in lower case). */
    private static final String[] SECRET_KEY_PARTS = {"password", "secret", "jaas.config", "token", "credential", "apikey", "api.key", "user.info"};

    /** {@code scheme://user:password@host}: the user information, up to the last {@code @} before the path. */
    private static final Pattern URI_USER_INFO = Pattern.compile("([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#\\s]*@");

    /**
     * Whether the value of a property named {@code key} is a credential: a key naming a password,
     * secret, token, credential, API key or JAAS configuration ({@code sasl.jaas.config}), and
     * every {@code ssl.key*} key (the private key and its password).
     */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        if (k.startsWith("ssl.key")) return true;
        for (String part : SECRET_KEY_PARTS) {
            if (k.contains(part)) return true;
        }
        return false;
    }

    /** {@code properties} with the value of every secret key replaced by {@link #MASK}, in their order. */
    public static Map<String, String> masked(Map<String, ?> properties) {
        Map<String, String> out = new LinkedHashMap<>();
        properties.forEach((k, v) -> out.put(k, isSecret(k) ? MASK : String.valueOf(v)));
        return out;
    }

    /**
     * {@code text} with the user information of every URI in it masked:
     * {@code s3://key:secret@bucket/m} becomes {@code s3://******@bucket/m}. Text with no such URI
     * comes back as it is; so does null.
     */
    public static String maskUris(String text) {
        if (text == null || text.indexOf('@') < 0) return text;
        return URI_USER_INFO.matcher(text).replaceAll("$1" + MASK + "@");
    }
}
