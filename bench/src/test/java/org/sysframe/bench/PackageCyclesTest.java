package org.sysframe.bench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench's packages depend on each other one way only: no package reaches, directly or through
 * others, back to itself. Read twice: from the compiled classes by the JDK's jdeps, and from the
 * sources' imports (javac copies a constant into the class that reads it, so jdeps misses an edge
 * made of constants only, e.g. a report naming a table by its NAME).
 */
class PackageCyclesTest {
    private static final String BENCH = "org.sysframe.bench";
    private static final String BENCH_PACKAGE = "(org\\.sysframe\\.bench(?:\\.\\w+)*)";
    private static final Pattern JDEPS_EDGE =
            Pattern.compile("^\\s+" + BENCH_PACKAGE + "\\s+->\\s+" + BENCH_PACKAGE + "\\s");
    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?(org\\.sysframe\\.bench(?:\\.[a-z_]\\w*)*)\\.[A-Z]",
            Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final List<String> CONCERNS = List.of("cli", "explore", "measure", "peer", "report", "table", "jmh",
            "profile");

    @Test
    void benchPackagesFormNoCycle() throws Exception {
        Map<String, Set<String>> classes = jdepsGraph(Path.of("target", "classes"));
        assertRead("jdeps", classes);
        assertEquals(List.of(), cycles(classes), "packages that depend on each other (jdeps, compiled classes): "
                + classes);

        Map<String, Set<String>> sources = importGraph(Path.of("src", "main", "java"));
        assertRead("imports", sources);
        assertEquals(List.of(), cycles(sources), "packages that depend on each other (the sources' imports): "
                + sources);
    }

    /** Every concern's package is there and the edges between them were found. */
    private static void assertRead(String how, Map<String, Set<String>> graph) {
        int edges = graph.values().stream().mapToInt(Set::size).sum();
        for (String p : CONCERNS) assertTrue(graph.containsKey(BENCH + "." + p), how + ": no package " + p + " in "
                + graph);
        assertTrue(edges >= 12 && graph.get(BENCH + ".cli").contains(BENCH + ".measure"),
                how + " output was read (" + graph.size() + " packages, " + edges + " edges): " + graph);
    }

    /** Package to the other bench packages it depends on, as {@code jdeps -verbose:package} reads the classes. */
    private static Map<String, Set<String>> jdepsGraph(Path classes) throws IOException, InterruptedException {
        assertTrue(Files.isDirectory(classes.resolve("org/sysframe/bench")), "compiled classes at "
                + classes.toAbsolutePath());
        Path jdeps = Path.of(System.getProperty("java.home"), "bin", "jdeps");
        Process p = new ProcessBuilder(jdeps.toString(), "-verbose:package", "-filter:none", classes.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jdeps did not finish");
        assertEquals(0, p.exitValue(), out);
        Map<String, Set<String>> graph = new TreeMap<>();
        for (String line : out.split("\n")) {
            Matcher m = JDEPS_EDGE.matcher(line);
            if (m.find()) edge(graph, m.group(1), m.group(2));
        }
        return graph;
    }

    /** Package to the other bench packages its sources import from. */
    private static Map<String, Set<String>> importGraph(Path sources) throws IOException {
        Map<String, Set<String>> graph = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.walk(sources)) {
            files = s.filter(f -> f.toString().endsWith(".java")).toList();
        }
        for (Path f : files) {
            String text = Files.readString(f);
            Matcher pkg = PACKAGE.matcher(text);
            assertTrue(pkg.find(), f + ": no package line");
            if (!pkg.group(1).startsWith(BENCH)) continue;
            Matcher m = IMPORT.matcher(text);
            edge(graph, pkg.group(1), null);
            while (m.find()) edge(graph, pkg.group(1), m.group(1));
        }
        return graph;
    }

    private static void edge(Map<String, Set<String>> graph, String from, String to) {
        graph.computeIfAbsent(from, k -> new TreeSet<>());
        if (to == null) return;
        graph.computeIfAbsent(to, k -> new TreeSet<>());
        if (!from.equals(to)) graph.get(from).add(to);
    }

    /** The strongly connected components of more than one package (Tarjan's algorithm). */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        return new Tarjan(graph).components;
    }

    private static final class Tarjan {
        private final Map<String, Set<String>> graph;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final List<String> stack = new ArrayList<>();
        private final List<Set<String>> components = new ArrayList<>();
        private int next;

        Tarjan(Map<String, Set<String>> graph) {
            this.graph = graph;
            for (String v : graph.keySet()) if (!index.containsKey(v)) visit(v);
        }

        private void visit(String v) {
            index.put(v, next);
            low.put(v, next++);
            stack.add(v);
            for (String w : graph.getOrDefault(v, Set.of())) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (stack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (!low.get(v).equals(index.get(v))) return;
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.remove(stack.size() - 1);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) components.add(component);
        }
    }
}
