package org.sysframe.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How the transport's main sources name each other, read from the text: each file's imports of the
 * module's classes, and the qualified names of its classes written anywhere else in the file (code or
 * comment: a Javadoc link by qualified name is an edge no compiled class shows). Gives the package
 * graph ({@link #packages}), the class graph ({@link #classCycles()}) and the imports that a comment
 * uses and no code ({@link #commentOnlyImports}: those a Javadoc link needs, which the compiler
 * erases). Class names are relative to {@code org.sysframe.transport} ({@code internal.server.ServerLoop},
 * {@code GroutServer}).
 */
final class SourceGraph {
    private static final String ROOT = "org.sysframe.transport.";
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern IMPORT =
            Pattern.compile("^\\s*import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);
    private static final Pattern QUALIFIED =
            Pattern.compile("\\borg\\.sysframe\\.transport\\.(?:[a-z_]\\w*\\.)*[A-Z]\\w*");

    /** The package graph: every package of a source file, and its edges to the others. */
    final PackageCyclesTest.Graph packages = new PackageCyclesTest.Graph();
    /** "internal.server.Loop imports internal.epoll.Driver" for each import that a comment uses and no code. */
    final List<String> commentOnlyImports = new ArrayList<>();
    private final Map<String, Set<String>> classes = new TreeMap<>();

    private SourceGraph() {}

    /** The graph of the sources under root (a source tree: src/main/java). */
    static SourceGraph read(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.filter(f -> f.toString().endsWith(".java")).toList()) {
                files.put(root.relativize(p).toString(), Files.readString(p));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return of(files);
    }

    /** The graph of files (their paths and texts). */
    static SourceGraph of(Map<String, String> files) {
        SourceGraph g = new SourceGraph();
        files.forEach(g::add);
        return g;
    }

    private void add(String path, String text) {
        Matcher pm = PACKAGE.matcher(text);
        String file = Path.of(path).getFileName().toString();
        if (!pm.find() || !(pm.group(1) + ".").startsWith(ROOT)) return; // module-info, or another module's
        String pkg = (pm.group(1) + ".").substring(ROOT.length());
        pkg = pkg.isEmpty() ? "" : pkg.substring(0, pkg.length() - 1);
        String self = (pkg.isEmpty() ? "" : pkg + ".") + file.substring(0, file.length() - ".java".length());
        boolean info = file.equals("package-info.java");
        packages.node(pkg.isEmpty() ? "(api)" : pkg);
        String code = code(text, false);
        String body = IMPORT.matcher(code).replaceAll("");
        String comments = code(text, true);
        Set<String> names = new TreeSet<>();
        Matcher im = IMPORT.matcher(code);
        while (im.find()) {
            String name = im.group(2);
            if (!name.startsWith(ROOT)) continue;
            String relative = name.substring(ROOT.length());
            String type = topLevel(relative);
            String simple = relative.substring(relative.lastIndexOf('.') + 1);
            if (im.group(3) == null && !uses(body, simple) && uses(comments, simple)) {
                commentOnlyImports.add(self + " imports " + relative);
            }
            if (type != null) names.add(type);
            else packages.edge(self, relative + ".*"); // a whole package
        }
        Matcher qm = QUALIFIED.matcher(PACKAGE.matcher(IMPORT.matcher(text).replaceAll("")).replaceAll(""));
        while (qm.find()) names.add(topLevel(qm.group().substring(ROOT.length())));
        for (String n : names) packages.edge(self, n);
        if (!info) classes.computeIfAbsent(self, k -> new TreeSet<>()).addAll(names);
    }

    /** "internal.io.Outlet" for internal.io.Outlet.Direct or internal.io.Outlet.NAME; null for a package. */
    private static String topLevel(String relative) {
        String[] parts = relative.split("\\.");
        StringBuilder out = new StringBuilder();
        for (String part : parts) {
            if (!out.isEmpty()) out.append('.');
            out.append(part);
            if (Character.isUpperCase(part.charAt(0))) return out.toString();
        }
        return null;
    }

    private static boolean uses(String code, String name) {
        return Pattern.compile("(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])").matcher(code).find();
    }

    /**
     * Cycles of classes outside the API package that name each other (imports and qualified names; a
     * class of the same package needs neither, so every cycle found crosses packages).
     */
    List<Set<String>> classCycles() {
        Map<String, Set<String>> internal = new TreeMap<>();
        classes.forEach((k, v) -> {
            if (k.contains(".")) internal.put(k, v);
        });
        return PackageCyclesTest.cycles(internal);
    }

    /** Each class of the cycles with the classes of the cycle it names. */
    String explain(List<Set<String>> cycles) {
        StringBuilder out = new StringBuilder();
        for (Set<String> c : cycles) {
            for (String a : c) {
                Set<String> named = new TreeSet<>(classes.get(a));
                named.retainAll(c);
                out.append("\n  ").append(a).append(" -> ").append(named);
            }
        }
        return out.toString();
    }

    /**
     * The text with its comments and the contents of its string and character literals blanked; or,
     * with comments true, the text of its comments only.
     */
    static String code(String src, boolean comments) {
        StringBuilder out = new StringBuilder(src.length());
        StringBuilder notes = new StringBuilder();
        int n = src.length();
        int i = 0;
        while (i < n) {
            char c = src.charAt(i);
            if (src.startsWith("//", i)) {
                int end = src.indexOf('\n', i);
                end = end < 0 ? n : end;
                notes.append(src, i, end).append('\n');
                i = end;
            } else if (src.startsWith("/*", i)) {
                int end = src.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                notes.append(src, i, end).append('\n');
                i = end;
                out.append(' ');
            } else if (src.startsWith("\"\"\"", i)) {
                int end = src.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && src.charAt(j) != c && src.charAt(j) != '\n') j += src.charAt(j) == '\\' ? 2 : 1;
                i = j + 1;
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return (comments ? notes : out).toString();
    }
}
