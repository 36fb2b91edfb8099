package org.sysframe.transport;

import org.junit.jupiter.api.Test;
import org.sysframe.transport.support.LoopsIndependent;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport's packages, twice: as the JDK's jdeps reads the compiled classes, and as the main
 * sources name each other (their imports and qualified names, Javadoc's included: a compiler erases an
 * import that only a Javadoc link uses, so jdeps cannot see the circle it makes). Both graphs must keep
 * the same rules: the wire format depends on no other package of the module but {@code internal.lookup}
 * (its type table, which depends on nothing); no cycle runs between the internal packages
 * ({@code internal.io}, {@code internal.client}, {@code internal.server}, {@code internal.epoll},
 * {@code internal.uring}, {@code internal.shm}, ...); neither I/O driver depends on the other; and the
 * server loop and the byte paths ({@code internal.server}, {@code internal.io}) know the drivers only
 * through their interfaces. Edges between the API package and the internals are allowed (the API
 * builds them, they read its configs). In the sources, besides: no class outside the API package is
 * in a cycle of classes that name each other across packages, and no import of a class of the module
 * is there only for a comment.
 */
@LoopsIndependent
class PackageCyclesTest {
    private static final String NAME = "org\\.sysframe\\.transport\\.([A-Za-z0-9_$.]+)";
    private static final Pattern EDGE = Pattern.compile("^\\s+" + NAME + "\\s+->\\s+" + NAME + "\\s");
    private static final Set<String> PACKAGES = Set.of("(api)", "wire", "internal.io", "internal.client",
            "internal.server", "internal.epoll", "internal.uring", "internal.shm", "internal.jfr", "internal.lookup");
    private static final List<String> DRIVERS = List.of("internal.epoll", "internal.uring", "internal.shm");

    @Test
    void internalPackagesFormNoCycleAndTheDriversStayApart() throws Exception {
        Path classes = Path.of("target", "classes");
        assertTrue(Files.isDirectory(classes.resolve("org/sysframe/transport")), "compiled classes at "
                + classes.toAbsolutePath());
        Path jdeps = Path.of(System.getProperty("java.home"), "bin", "jdeps");
        Process p = new ProcessBuilder(jdeps.toString(), "-verbose:class", "-filter:none", classes.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jdeps did not finish");
        assertEquals(0, p.exitValue(), out);
        Graph g = new Graph();
        for (String line : out.split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (m.find()) g.edge(m.group(1), m.group(2));
        }
        checkRules("jdeps", g);
    }

    @Test
    void theSourcesKeepTheSameRulesAndNameNoClassInACircle() throws Exception {
        SourceGraph sources = SourceGraph.read(Path.of("src", "main", "java"));
        checkRules("sources", sources.packages);
        List<Set<String>> circles = sources.classCycles();
        assertEquals(List.of(), circles, "classes that name each other across packages: " + sources.explain(circles));
    }

    @Test
    void noImportOfTheModuleIsThereOnlyForAComment() throws Exception {
        SourceGraph sources = SourceGraph.read(Path.of("src", "main", "java"));
        assertEquals(List.of(), sources.commentOnlyImports,
                "imports used only in comments (write the name in plain text or {@code ...}, without the import)");
    }

    /** The source check finds what jdeps cannot: a circle of two classes made by an import for a Javadoc link. */
    @Test
    void theSourceCheckFindsACircleMadeForAJavadocLink() {
        Map<String, String> files = new TreeMap<>();
        files.put("org/sysframe/transport/internal/server/Loop.java", """
                package org.sysframe.transport.internal.server;

                import org.sysframe.transport.internal.epoll.Driver;
                import org.sysframe.transport.internal.io.Waiter;

                /** Driven by a driver ({@link Driver}); the string "Driver" is no use of it. */
                public final class Loop {
                    private final Waiter waiter = null; // Driver
                }
                """);
        files.put("org/sysframe/transport/internal/epoll/Driver.java", """
                package org.sysframe.transport.internal.epoll;

                import org.sysframe.transport.internal.server.Loop;

                public final class Driver {
                    Loop loop;
                    /** {@link org.sysframe.transport.internal.io.Waiter} */
                    int waits;
                }
                """);
        files.put("org/sysframe/transport/internal/io/Waiter.java", """
                package org.sysframe.transport.internal.io;

                public final class Waiter {}
                """);
        SourceGraph g = SourceGraph.of(files);
        assertEquals(List.of("internal.server.Loop imports internal.epoll.Driver"), g.commentOnlyImports);
        assertEquals(Set.of("internal.epoll", "internal.io"), g.packages.edges.get("internal.server"));
        assertEquals(Set.of("internal.server", "internal.io"), g.packages.edges.get("internal.epoll"));
        assertEquals(List.of(Set.of("internal.epoll", "internal.server")), cycles(g.packages.edges));
        assertEquals(List.of(Set.of("internal.epoll.Driver", "internal.server.Loop")), g.classCycles());
    }

    /** The rules every graph of the module's packages keeps; source names the graph's origin in the messages. */
    private static void checkRules(String source, Graph g) {
        Map<String, Set<String>> packages = g.edges;
        assertEquals(PACKAGES, packages.keySet(), source + ": the packages read");
        assertEquals(Set.of("internal.lookup"), packages.get("wire"),
                source + ": the wire format depends on no other package of the module but its type table's");
        assertEquals(Set.of(), packages.get("internal.lookup"), source + ": the type table depends on nothing");
        for (String a : DRIVERS) {
            for (String b : DRIVERS) {
                if (!a.equals(b)) assertFalse(packages.get(a).contains(b), source + ": " + g.why(a, b));
            }
            for (String user : List.of("internal.server", "internal.io")) {
                assertFalse(packages.get(user).contains(a), source + ": " + g.why(user, a));
            }
        }
        Map<String, Set<String>> internal = new TreeMap<>();
        packages.forEach((k, v) -> {
            if (k.startsWith("internal.")) internal.put(k,
                    new TreeSet<>(v.stream().filter(x -> x.startsWith("internal.")).toList()));
        });
        assertTrue(internal.get("internal.epoll").contains("internal.server")
                && internal.get("internal.server").contains("internal.io"),
                source + " was read: " + internal);
        List<Set<String>> cycles = cycles(internal);
        StringBuilder why = new StringBuilder();
        for (Set<String> c : cycles) {
            for (String a : c) {
                for (String b : c) if (g.example.containsKey(a + " -> " + b)) why.append("\n  ").append(g.why(a, b));
            }
        }
        assertEquals(List.of(), cycles, source + ": internal packages that depend on each other:" + why);
    }

    /** A graph of the module's packages, with one class edge that makes each package edge. */
    static final class Graph {
        final Map<String, Set<String>> edges = new TreeMap<>();
        final Map<String, String> example = new TreeMap<>(); // "a -> b": "class -> class"

        /** Adds a package node of its own. */
        void node(String pkg) { edges.computeIfAbsent(pkg, k -> new TreeSet<>()); }

        /** The edge of class from (a name below org.sysframe.transport) to class to. */
        void edge(String from, String to) {
            String a = packageOf(from), b = packageOf(to);
            node(a);
            node(b);
            if (!a.equals(b) && edges.get(a).add(b)) example.put(a + " -> " + b, from + " -> " + to);
        }

        String why(String a, String b) { return a + " depends on " + b + ": " + example.get(a + " -> " + b); }
    }

    /** "internal.server" for internal.server.ServerLoop$1, "(api)" for the API package. */
    static String packageOf(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "(api)" : name.substring(0, dot);
    }

    /** Strongly connected components of more than one node (Tarjan). */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> found = new ArrayList<>();
        int[] counter = {0};
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) connect(v, graph, index, low, stack, onStack, found, counter);
        }
        return found;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String,
            Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> found, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!graph.containsKey(w)) continue;
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, found, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) found.add(component);
        }
    }
}
