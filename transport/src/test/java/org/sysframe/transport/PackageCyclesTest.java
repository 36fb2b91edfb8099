package org.sysframe.transport;

import org.sysframe.transport.internal.server.ServerConnection;

import org.junit.jupiter.api.Test;

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
 * The transport's packages as the JDK's jdeps reads the compiled classes: the wire format depends on no
 * other package of the module but {@code internal.lookup} (its type table, which depends on nothing); no cycle runs between the internal packages ({@code internal.io},
 * {@code internal.client}, {@code internal.server}, {@code internal.epoll}, {@code internal.uring}, {@code internal.shm});
 * and neither I/O driver depends on the other. Cycles inside one package are allowed, and so are
 * edges between the API package and the internals (the API builds them, they read its configs).
 */
class PackageCyclesTest {
    private static final Pattern EDGE = Pattern.compile("^\\s+org\\.sysframe\\.transport\\.([A-Za-z0-9_$.]+)\\s+->\\s+org\\.sysframe\\.transport\\.([A-Za-z0-9_$.]+)\\s");

    @Test
    void internalPackagesFormNoCycleAndTheDriversStayApart() throws Exception {
        Path classes = Path.of("target", "classes");
        assertTrue(Files.isDirectory(classes.resolve("org/sysframe/transport")), "compiled classes at " + classes.toAbsolutePath());
        Path jdeps = Path.of(System.getProperty("java.home"), "bin", "jdeps");
        Process p = new ProcessBuilder(jdeps.toString(), "-verbose:class", "-filter:none", classes.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jdeps did not finish");
        assertEquals(0, p.exitValue(), out);
        Map<String, Set<String>> packages = new TreeMap<>();
        Map<String, String> example = new TreeMap<>(); // "a -> b": one class edge that makes the package edge
        for (String line : out.split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (!m.find()) continue;
            String from = packageOf(m.group(1)), to = packageOf(m.group(2));
            packages.computeIfAbsent(from, k -> new TreeSet<>());
            packages.computeIfAbsent(to, k -> new TreeSet<>());
            if (!from.equals(to) && packages.get(from).add(to)) example.put(from + " -> " + to, m.group(1) + " -> " + m.group(2));
        }
        assertEquals(Set.of("(api)", "wire", "internal.io", "internal.client", "internal.server", "internal.epoll", "internal.uring", "internal.shm", "internal.jfr",
                "internal.lookup"), packages.keySet(), "the packages jdeps read");
        assertEquals(Set.of("internal.lookup"), packages.get("wire"), "the wire format depends on no other package of the module but its type table's");
        assertEquals(Set.of(), packages.get("internal.lookup"), "the type table depends on nothing");
        for (String[] pair : new String[][] {{"internal.epoll", "internal.uring"}, {"internal.uring", "internal.epoll"}}) {
            assertFalse(packages.get(pair[0]).contains(pair[1]), pair[0] + " depends on " + pair[1] + ": " + example.get(pair[0] + " -> " + pair[1]));
        }
        Map<String, Set<String>> internal = new TreeMap<>();
        packages.forEach((k, v) -> {
            if (k.startsWith("internal.")) internal.put(k, new TreeSet<>(v.stream().filter(x -> x.startsWith("internal.")).toList()));
        });
        assertTrue(internal.get("internal.epoll").contains("internal.server") && internal.get("internal.server").contains("internal.io"),
                "jdeps output was read: " + internal);
        List<Set<String>> cycles = cycles(internal);
        StringBuilder why = new StringBuilder();
        for (Set<String> c : cycles) {
            for (String a : c) for (String b : c) if (example.containsKey(a + " -> " + b)) why.append("\n  ").append(example.get(a + " -> " + b));
        }
        assertEquals(List.of(), cycles, "internal packages that depend on each other:" + why);
    }

    /** "internal.server" for org.sysframe.transport.internal.server.ServerLoop$1, "(api)" for the API package. */
    private static String packageOf(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "(api)" : name.substring(0, dot);
    }

    /** Strongly connected components of more than one class (Tarjan). */
    private static List<Set<String>> cycles(Map<String, Set<String>> graph) {
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

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String, Integer> low,
                                Deque<String> stack, Set<String> onStack, List<Set<String>> found, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : graph.get(v)) {
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
