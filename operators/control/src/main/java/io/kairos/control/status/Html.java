package io.kairos.control.status;

/** Text made safe to put in HTML, as element content or as a quoted attribute value. */
final class Html {
    private Html() {}

    /** {@code text} with every character that HTML gives a meaning to written as a character reference; null as the empty string. */
    static String escape(String text) {
        if (text == null) return "";
        StringBuilder b = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
