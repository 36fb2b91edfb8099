package org.sysframe.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.testsupport.ProcessRun;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The complete Maven project of docs/integrating.md ("Build it with Maven"), taken from the guide's text and
 * built and run as the guide says. Each of its fenced blocks follows a marker line
 * {@code <!-- integrator-project: NAME -->}: NAME is the file's path in the project, or {@code commands} for
 * the two commands. The files are written into an empty directory; the {@code mvn} command runs there with
 * the Maven running this build, offline and on the local repository of this build (which holds the
 * sysframe jars {@code mvn install} has just installed), and without MAVEN_OPTS or mavenrc files, so that
 * only the project's {@code .mvn/jvm.config} can keep JDK 24+ from warning about {@code sun.misc.Unsafe};
 * it must succeed and print nothing, and must have compiled for the project's release. The {@code java}
 * command then runs through bash (its quoting and class-path wildcard as a user's shell sees them) against
 * a real server of this JVM, its socket path in place of the guide's, and must print exactly the echo.
 */
class IntegratorProjectTest {
    private static final Path ROOT = Path.of(System.getProperty("sysframe.root", "..")).toAbsolutePath().normalize();
    private static final Path GUIDE = ROOT.resolve("docs/integrating.md");
    private static final Pattern MARKER = Pattern.compile("<!-- integrator-project: (\\S+) -->");
    private static final String CLIENT = "src/main/java/com/example/ping/PingExample.java";
    private static final List<String> FILES = List.of("pom.xml", ".mvn/jvm.config", CLIENT);
    private static final String COMMANDS = "commands";
    /** The socket path of the guide's java command, replaced by the test server's. */
    private static final String GUIDE_SOCKET = "/run/grout.sock";
    private static final String ANSWER = "GR_PING answered 12 bytes: hello, grout";
    /** Every plugin that `mvn package`, `clean` and `install` run for a jar project, and the one the pom adds. */
    private static final List<String> PLUGINS = List.of("maven-clean-plugin", "maven-resources-plugin", "maven-compiler-plugin",
            "maven-surefire-plugin", "maven-jar-plugin", "maven-install-plugin", "maven-dependency-plugin");
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

    @Test
    void theGuidesProjectBuildsAndRunsAsWritten(@TempDir Path dir) throws Exception {
        Map<String, String> blocks = projectBlocks(Files.readAllLines(GUIDE));
        List<String> expected = new ArrayList<>(FILES);
        expected.add(COMMANDS);
        assertEquals(expected.stream().sorted().toList(), blocks.keySet().stream().sorted().toList(),
                "the marked blocks of docs/integrating.md");
        assertEquals(Files.readString(IntegrationExampleTest.PING_EXAMPLE), blocks.get(CLIENT),
                "the project's client is the example this module compiles");
        String release = pomChecks(blocks.get("pom.xml"));

        Path project = Files.createDirectories(dir.resolve("ping"));
        for (String file : FILES) {
            Path to = project.resolve(file);
            Files.createDirectories(to.getParent());
            Files.writeString(to, blocks.get(file));
        }
        List<String> commands = blocks.get(COMMANDS).lines().filter(l -> !l.isBlank()).toList();
        assertEquals(2, commands.size(), "the guide's commands: mvn, then java\n" + commands);

        String mvnLine = commands.get(0);
        Run build = run(project, maven(mvnLine), BUILD_TIMEOUT);
        String printed = ANSI.matcher(build.output).replaceAll("");
        assertEquals(0, build.exit, "`" + mvnLine + "` failed in the guide's project (" + build.command + "):\n" + printed);
        assertFalse(printed.contains("sun.misc.Unsafe"), "`" + mvnLine + "` warned about sun.misc.Unsafe:\n" + printed);
        assertEquals("", printed.strip(), "`" + mvnLine + "` printed something");
        Path classFile = project.resolve("target/classes/com/example/ping/PingExample.class");
        assertEquals(44 + Integer.parseInt(release), classVersion(classFile), classFile + ": the class file version of release " + release);

        String javaLine = commands.get(1);
        assertTrue(javaLine.startsWith("java ") && javaLine.endsWith(" " + GUIDE_SOCKET),
                "the guide's second command runs java with the socket path " + GUIDE_SOCKET + " last: " + javaLine);
        Path socket = dir.resolve("grout.sock");
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socket.toString()))) {
            String line = javaLine.substring(0, javaLine.length() - GUIDE_SOCKET.length()) + "'" + server.socketPath() + "'";
            Run run = run(project, List.of("bash", "-c", line), RUN_TIMEOUT);
            assertEquals(0, run.exit, "`" + line + "`:\n" + run.output);
            assertEquals(List.of(ANSWER), run.output.lines().toList(), "what `" + line + "` printed");
        }
    }

    /** The fenced blocks that follow a marker line, by name; a marker not followed by a fence, or twice the same name, fails. */
    static Map<String, String> projectBlocks(List<String> lines) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i).strip());
            if (!m.matches()) continue;
            String where = "docs/integrating.md:" + (i + 1) + ": ";
            assertTrue(i + 1 < lines.size() && lines.get(i + 1).startsWith("```"), where + "a marker not followed by a ``` fence");
            StringBuilder text = new StringBuilder();
            int j = i + 2;
            for (; j < lines.size() && !lines.get(j).equals("```"); j++) text.append(lines.get(j)).append('\n');
            assertTrue(j < lines.size(), where + "the block is never closed");
            assertEquals(null, out.put(m.group(1), text.toString()), where + "a second block named " + m.group(1));
            i = j;
        }
        return out;
    }

    /**
     * The pom's own checks: sysframe-transport at this build's version, every plugin of {@link #PLUGINS} at the
     * version the root pom pins, no other plugin, and the root pom's release. Returns the release.
     */
    private static String pomChecks(String pom) throws Exception {
        Document guide = xml(pom.getBytes(StandardCharsets.UTF_8));
        Document root = xml(Files.readAllBytes(ROOT.resolve("pom.xml")));

        String transport = null;
        for (Element d : elements(guide, "dependency")) {
            if (text(d, "artifactId").equals("sysframe-transport")) transport = text(d, "version");
        }
        assertEquals(System.getProperty("sysframe.version"), transport, "the guide's pom: the sysframe-transport version");

        Map<String, String> pinned = new TreeMap<>(), shown = new TreeMap<>();
        for (Element p : elements(root, "plugin")) if (!text(p, "version").isEmpty()) pinned.put(text(p, "artifactId"), text(p, "version"));
        for (Element p : elements(guide, "plugin")) {
            String version = text(p, "version");
            String before = version.isEmpty() ? shown.putIfAbsent(text(p, "artifactId"), "") : shown.put(text(p, "artifactId"), version);
            assertTrue(before == null || before.isEmpty() || version.isEmpty(), "the guide's pom pins " + text(p, "artifactId") + " twice");
        }
        Map<String, String> expected = new TreeMap<>();
        for (String plugin : PLUGINS) expected.put(plugin, assertPinned(pinned, plugin));
        assertEquals(expected, shown, "the guide's pom: its plugins and their versions, those of the root pom");

        String release = text(guide.getDocumentElement(), "maven.compiler.release");
        assertEquals(text(root.getDocumentElement(), "maven.compiler.release"), release, "the guide's pom: maven.compiler.release");
        return release;
    }

    private static String assertPinned(Map<String, String> pinned, String plugin) {
        String version = pinned.get(plugin);
        assertNotNull(version, "the root pom pins no version of " + plugin + ": " + pinned);
        return version;
    }

    private static Document xml(byte[] bytes) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(bytes));
    }

    private static List<Element> elements(Document doc, String name) {
        NodeList all = doc.getElementsByTagName(name);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < all.getLength(); i++) out.add((Element) all.item(i));
        return out;
    }

    /** The text of e's first descendant element of this name, "" when there is none. */
    private static String text(Element e, String name) {
        Node n = e.getElementsByTagName(name).item(0);
        return n == null ? "" : n.getTextContent().strip();
    }

    private static int classVersion(Path classFile) throws IOException {
        assertTrue(Files.isRegularFile(classFile), "no " + classFile);
        try (InputStream in = Files.newInputStream(classFile); DataInputStream data = new DataInputStream(in)) {
            assertEquals(0xCAFEBABE, data.readInt(), classFile + ": not a class file");
            data.readUnsignedShort();
            return data.readUnsignedShort();
        }
    }

    /**
     * The guide's mvn line, with the Maven running this build, in batch mode, offline and on this build's local
     * repository (the options come before the guide's own, which follow as they are).
     */
    private static List<String> maven(String line) {
        List<String> words = Arrays.asList(line.strip().split(" +"));
        assertEquals("mvn", words.getFirst(), "the guide's first command runs mvn: " + line);
        assertFalse(line.contains("'") || line.contains("\""), "the guide's mvn command, taken word by word, has no quotes: " + line);
        String repo = System.getProperty("sysframe.maven.repo");
        assertTrue(repo != null && Files.isDirectory(Path.of(repo, "org/sysframe/sysframe-transport")),
                "sysframe.maven.repo (set by examples/pom.xml) names the local repository holding sysframe: " + repo);
        String home = System.getProperty("sysframe.maven.home", "");
        Path mvn = Path.of(home, "bin", "mvn");
        List<String> command = new ArrayList<>(List.of(!home.isEmpty() && Files.isExecutable(mvn) ? mvn.toString() : "mvn",
                "-B", "-o", "-Dmaven.repo.local=" + repo));
        command.addAll(words.subList(1, words.size()));
        return command;
    }

    private record Run(List<String> command, int exit, String output) {}

    /**
     * A child process in dir, stdout and stderr merged: this JDK first on PATH and as JAVA_HOME, and nothing
     * else that would give the JVMs options (MAVEN_OPTS, mavenrc files, JDK_JAVA_OPTIONS, JAVA_TOOL_OPTIONS).
     */
    private static Run run(Path dir, List<String> command, Duration timeout) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        String javaHome = System.getProperty("java.home");
        env.put("JAVA_HOME", javaHome);
        env.put("PATH", Path.of(javaHome, "bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("MAVEN_SKIP_RC", "true");
        for (String options : List.of("MAVEN_OPTS", "JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")) env.remove(options);
        ProcessRun r = ProcessRun.of(pb, timeout);
        return new Run(command, r.exit(), r.output());
    }
}
