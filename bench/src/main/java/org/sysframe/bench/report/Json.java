package org.sysframe.bench.report;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal JSON writer for the figures we print (maps, lists, strings, numbers, booleans, null), and
 * a reader of the same ({@link #parse}: objects as ordered maps, arrays as lists, numbers as doubles).
 */
public final class Json {
    private Json() {}

    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        append(sb, value);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                append(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first) sb.append(',');
                first = false;
                append(sb, o);
            }
            sb.append(']');
        } else if (v instanceof Double d) {
            sb.append(d.isNaN() || d.isInfinite() ? "null"
                    : String.format(Locale.ROOT, "%.6g", d).replaceAll("(\\.\\d*?)0+(e|$)", "$1$2")
                            .replaceAll("\\.(e|$)", "$1"));
        } else if (v instanceof Float f) {
            append(sb, (double) f);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else {
            string(sb, v.toString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }

    /** The value of a JSON text; IllegalArgumentException with the offset when it is not JSON. */
    public static Object parse(String text) {
        int[] at = {0};
        Object v = value(text, at);
        skip(text, at);
        if (at[0] != text.length()) throw bad(text, at, "trailing characters");
        return v;
    }

    private static IllegalArgumentException bad(String s, int[] at, String what) {
        return new IllegalArgumentException("not JSON at offset " + at[0] + ": " + what);
    }

    private static void skip(String s, int[] at) {
        while (at[0] < s.length() && Character.isWhitespace(s.charAt(at[0]))) at[0]++;
    }

    private static Object value(String s, int[] at) {
        skip(s, at);
        if (at[0] >= s.length()) throw bad(s, at, "unexpected end");
        char c = s.charAt(at[0]);
        if (c == '{') {
            Map<String, Object> m = new LinkedHashMap<>();
            at[0]++;
            skip(s, at);
            if (at[0] < s.length() && s.charAt(at[0]) == '}') { at[0]++; return m; }
            while (true) {
                skip(s, at);
                if (at[0] >= s.length() || s.charAt(at[0]) != '"') throw bad(s, at, "expected a key");
                String k = text(s, at);
                skip(s, at);
                if (at[0] >= s.length() || s.charAt(at[0]++) != ':') throw bad(s, at, "expected ':'");
                m.put(k, value(s, at));
                skip(s, at);
                if (at[0] >= s.length()) throw bad(s, at, "unexpected end");
                char d = s.charAt(at[0]++);
                if (d == '}') return m;
                if (d != ',') {
                    at[0]--;
                    throw bad(s, at, "expected ',' or '}'");
                }
            }
        }
        if (c == '[') {
            List<Object> l = new ArrayList<>();
            at[0]++;
            skip(s, at);
            if (at[0] < s.length() && s.charAt(at[0]) == ']') { at[0]++; return l; }
            while (true) {
                l.add(value(s, at));
                skip(s, at);
                if (at[0] >= s.length()) throw bad(s, at, "unexpected end");
                char d = s.charAt(at[0]++);
                if (d == ']') return l;
                if (d != ',') {
                    at[0]--;
                    throw bad(s, at, "expected ',' or ']'");
                }
            }
        }
        if (c == '"') return text(s, at);
        for (String word : new String[] {"true", "false", "null"}) {
            if (s.startsWith(word, at[0])) {
                at[0] += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        int start = at[0];
        while (at[0] < s.length() && "+-0123456789.eE".indexOf(s.charAt(at[0])) >= 0) at[0]++;
        try {
            return Double.parseDouble(s.substring(start, at[0]));
        } catch (NumberFormatException e) {
            at[0] = start;
            throw bad(s, at, "unexpected character '" + c + "'");
        }
    }

    private static String text(String s, int[] at) {
        StringBuilder sb = new StringBuilder();
        at[0]++;
        while (at[0] < s.length()) {
            char c = s.charAt(at[0]++);
            if (c == '"') return sb.toString();
            if (c != '\\') { sb.append(c); continue; }
            if (at[0] >= s.length()) break;
            char e = s.charAt(at[0]++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    if (at[0] + 4 > s.length()) throw bad(s, at, "short \\u escape");
                    sb.append((char) Integer.parseInt(s.substring(at[0], at[0] + 4), 16));
                    at[0] += 4;
                }
                default -> sb.append(e);
            }
        }
        throw bad(s, at, "unterminated string");
    }
}
