package io.kairos.core.request;

import io.kairos.core.api.Internal;

/**
 * Sizes of text as it goes on the wire (UTF-8), and cutting it to a size: the limits on ids and
 * names are in bytes, because bytes are what a Kafka record is limited by.
 */
@Internal
public final class Utf8 {
    private Utf8() {}

    /** The UTF-8 length of {@code s} (an unpaired surrogate counts as the one byte Java writes for it, '?'). */
    public static long length(CharSequence s) {
        long bytes = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) bytes += 1;
            else if (c < 0x800) bytes += 2;
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) bytes += 1;
            else bytes += 3;
        }
        return bytes;
    }

    /** Whether {@code s} takes at most {@code max} bytes, without counting all of a long one. */
    public static boolean fits(CharSequence s, long max) {
        return s.length() <= max / 3 || length(s) <= max;
    }

    /** The longest prefix of {@code s} of at most {@code max} bytes that ends on a whole character. */
    public static String truncate(String s, long max) {
        long bytes = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            int w = 1, chars = 1;
            if (c >= 0x80 && c < 0x800) w = 2;
            else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) { w = 4; chars = 2; }
            else if (c >= 0x800 && !Character.isSurrogate(c)) w = 3;
            if (bytes + w > max) return s.substring(0, i);
            bytes += w;
            i += chars - 1;
        }
        return s;
    }
}
