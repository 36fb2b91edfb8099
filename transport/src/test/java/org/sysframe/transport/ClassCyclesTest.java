package org.sysframe.transport;

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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No two top-level classes of the transport module depend on each other, directly or through others
 * (nested classes count as their outer class), as the JDK's jdeps reads the compiled classes: the
 * protocol, the I/O driver and the server's parts stay apart.
 */
class ClassCyclesTest {
    private static final Pattern EDGE = Pattern.compile("^\\s+org\\.sysframe\\.transport\\.([A-Za-z0-9_$]+)\\s+->\\s+org\\.sysframe\\.transport\\.([A-Za-z0-9_$]+)\\s");

    @Test
    void topLevelClassesOfTransportFormNoCycle() throws Exception {
        Path classes = Path.of("target", "classes");
        assertTrue(Files.isDirectory(classes.resolve("org/sysframe/transport")), "compiled classes at " + classes.toAbsolutePath());
        Path jdeps = Path.of(System.getProperty("java.home"), "bin", "jdeps");
        Process p = new ProcessBuilder(jdeps.toString(), "-verbose:class", "-filter:none", classes.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jdeps did not finish");
        assertEquals(0, p.exitValue(), out);
        Map<String, Set<String>> graph = new TreeMap<>();
        int edges = 0;
        for (String line : out.split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (!m.find()) continue;
            String from = outer(m.group(1)), to = outer(m.group(2));
            graph.computeIfAbsent(from, k -> new TreeSet<>());
            graph.computeIfAbsent(to, k -> new TreeSet<>());
            if (!from.equals(to) && graph.get(from).add(to)) edges++;
        }
        assertTrue(graph.containsKey("GroutServer") && graph.containsKey("ServerConnection") && edges > 50,
                "jdeps output was read (" + graph.size() + " classes, " + edges + " edges)");
        assertEquals(List.of(), cycles(graph), "classes that depend on each other");
    }

    private static String outer(String binaryName) {
        int d = binaryName.indexOf('$');
        return d < 0 ? binaryName : binaryName.substring(0, d);
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
