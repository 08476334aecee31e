package io.kairos.wire;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The Kafka client properties a user gives Kairos (SASL and TLS settings above all), which every
 * Kafka client Kairos makes takes on top of its own settings: the serving job's sources and sinks,
 * the decision publisher, the commands' producers, consumers and admin clients. They come from a
 * properties file and {@code key=value} pairs, a pair winning over the file.
 *
 * <p>A client's own settings are its defaults: the user's properties override them (a user who
 * sets {@code max.request.size} means it), except the few that Kairos derives from its own flags
 * or must own to work at all ({@link #OWNED}), which are refused.
 */
public final class KafkaClientProperties {
    private KafkaClientProperties() {}

    /** Keys the user may not set here, each with what sets it instead. */
    public static final Map<String, String> OWNED = new TreeMap<>(Map.of(
            "bootstrap.servers", "--bootstrap-servers sets it",
            "group.id", "each client chooses its consumer group (the job's is --group-id)",
            "key.serializer", "Kairos serializes its records itself",
            "value.serializer", "Kairos serializes its records itself",
            "key.deserializer", "Kairos deserializes its records itself",
            "value.deserializer", "Kairos deserializes its records itself"));

    /**
     * The properties of {@code file} (null: none), then each {@code key=value} of {@code pairs}
     * over them, in that order.
     *
     * @param fileOption the name the user knows the file by, for the messages ({@code --kafka-config})
     * @param pairOption the name the user knows the pairs by ({@code --kafka-property})
     * @throws IllegalArgumentException in one line naming the file or the pair that is wrong: a
     *         file that cannot be read, a pair without {@code =} or with an empty key, a key of {@link #OWNED}
     */
    public static Map<String, String> read(Path file, List<String> pairs, String fileOption, String pairOption) {
        Map<String, String> out = new LinkedHashMap<>();
        if (file != null) {
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(in);
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException(fileOption + " " + file + ": no such file");
            } catch (IOException e) {
                throw new IllegalArgumentException(fileOption + " " + file + ": cannot read (" + e.getMessage() + ")");
            } catch (IllegalArgumentException e) { // a malformed \\uXXXX escape
                throw new IllegalArgumentException(fileOption + " " + file + ": not a properties file (" + e.getMessage() + ")");
            }
            for (String key : new TreeSet<>(p.stringPropertyNames())) {
                check(key, fileOption + " " + file);
                out.put(key, p.getProperty(key));
            }
        }
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(pairOption + " '" + (Secrets.isSecret(pair) ? Secrets.MASK : pair) + "': expected KEY=VALUE");
            }
            String key = pair.substring(0, eq).strip();
            if (key.isEmpty()) throw new IllegalArgumentException(pairOption + " '" + (Secrets.isSecret(pair) ? Secrets.MASK : pair) + "': the key is empty");
            check(key, pairOption + " " + key);
            out.put(key, pair.substring(eq + 1));
        }
        return out;
    }

    private static void check(String key, String where) {
        String why = OWNED.get(key);
        if (why != null) throw new IllegalArgumentException(where + ": '" + key + "' cannot be set here: " + why);
    }

    /** A client's own settings {@code own} with {@code user}'s over them: a new map, {@code own} unchanged. */
    public static Map<String, Object> over(Map<String, ?> own, Map<String, String> user) {
        Map<String, Object> out = new LinkedHashMap<>(own);
        out.putAll(user);
        return out;
    }

    /** {@link #over(Map, Map)} for the clients that take {@link Properties} (Flink's Kafka connector). */
    public static Properties over(Properties own, Map<String, String> user) {
        Properties out = new Properties();
        out.putAll(own);
        out.putAll(user);
        return out;
    }
}
