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
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The complete Maven project of docs/integrating.md ("Build it with Maven"), taken from the guide's text and built
 * and run as the guide says, against a file repository of the release and nothing else for sysframe.
 *
 * <p>Each of the guide's fenced blocks follows a marker line {@code <!-- integrator-project: NAME -->}: NAME is the
 * file's path in the project, or {@code commands} for the two commands. The files are written into an empty
 * directory, and the release goes where the guide unpacks it, {@code repository/}: this build's sysframe artifacts
 * (the parent pom, the BOM, the two library jars and their poms, as {@code mvn install} has just installed them)
 * laid out there as {@code make release}'s deploy lays them out (each file beside its SHA-1 and MD5). The test makes
 * its own release because {@code make test} runs {@code mvn install}, not {@code make release}, and Maven's deploy
 * plugin refuses to run in an offline build; writing the few files itself spares a Maven run.
 *
 * <p>The {@code mvn} command then runs there with the Maven running this build, offline ({@code -o}, with
 * {@code aether.offline.protocols=file}: file repositories only), on an empty local repository of its own, and
 * without MAVEN_OPTS or mavenrc files, so that only the project's {@code .mvn/jvm.config} can keep JDK 24+ from
 * warning about {@code sun.misc.Unsafe} and Maven 3.8 from printing {@code ESC[0m}. Maven's plugins must come from
 * somewhere: a mirror of every network repository points at a view of this build's local repository that leaves
 * {@code org/sysframe} out, so sysframe can come from {@code repository/} alone. The proof: every sysframe file of
 * the new local repository was downloaded from the pom's repository (Maven records where in
 * {@code _remote.repositories}) and is the release's, byte for byte, and so are the jars in {@code target/lib}. The
 * build must print nothing and compile for the project's release. The {@code java} command then runs through bash
 * (its quoting and class-path wildcard as a user's shell sees them) against a real server of this JVM, its socket
 * path in place of the guide's, and must print exactly the echo.
 */
class IntegratorProjectTest {
    private static final Path ROOT = Path.of(System.getProperty("sysframe.root", "..")).toAbsolutePath().normalize();
    private static final Path GUIDE = ROOT.resolve("docs/integrating.md");
    private static final String VERSION = System.getProperty("sysframe.version");
    private static final Pattern MARKER = Pattern.compile("<!-- integrator-project: (\\S+) -->");
    private static final String CLIENT = "src/main/java/com/example/ping/PingExample.java";
    private static final List<String> FILES = List.of("pom.xml", ".mvn/jvm.config", CLIENT);
    private static final String COMMANDS = "commands";
    /** Where the guide unpacks the release, and the URL its pom gives for it. */
    private static final String RELEASE_DIR = "repository";
    private static final String RELEASE_URL = "file://${project.basedir}/" + RELEASE_DIR;
    /** The released artifacts the guide's project reads: two poms, and the library jars with their poms. */
    private static final List<String> POMS = List.of("sysframe-parent", "sysframe-bom");
    private static final List<String> JARS = List.of("sysframe-native-bindings", "sysframe-transport");
    /** The socket path of the guide's java command, replaced by the test server's. */
    private static final String GUIDE_SOCKET = "/run/grout.sock";
    private static final String ANSWER = "GR_PING answered 12 bytes: hello, grout";
    /** Every plugin that `mvn package`, `clean` and `install` run for a jar project, and the one the pom adds. */
    private static final List<String> PLUGINS = List.of("maven-clean-plugin", "maven-resources-plugin",
            "maven-compiler-plugin", "maven-surefire-plugin", "maven-jar-plugin", "maven-install-plugin",
            "maven-dependency-plugin");
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void theGuidesProjectBuildsAndRunsAsWritten(@TempDir Path dir) throws Exception {
        Map<String, String> blocks = projectBlocks(Files.readAllLines(GUIDE));
        List<String> expected = new ArrayList<>(FILES);
        expected.add(COMMANDS);
        assertEquals(expected.stream().sorted().toList(), blocks.keySet().stream().sorted().toList(),
                "the marked blocks of docs/integrating.md");
        assertEquals(Files.readString(IntegrationExampleTest.PING_EXAMPLE), blocks.get(CLIENT),
                "the project's client is the example this module compiles");
        GuidePom pom = pomChecks(blocks.get("pom.xml"));

        Path project = Files.createDirectories(dir.resolve("ping"));
        for (String file : FILES) {
            Path to = project.resolve(file);
            Files.createDirectories(to.getParent());
            Files.writeString(to, blocks.get(file));
        }
        List<String> commands = blocks.get(COMMANDS).lines().filter(l -> !l.isBlank()).toList();
        assertEquals(2, commands.size(), "the guide's commands: mvn, then java\n" + commands);

        Path installed = installedRepository();
        Path plugins = dir.resolve("plugins");
        Path release = project.resolve(RELEASE_DIR);
        try {
            Path settings = pluginsOnly(installed, plugins, dir.resolve("settings.xml"));
            publish(installed, release);
            Path local = Files.createDirectories(dir.resolve("local-repository"));
            long start = System.nanoTime();
            String mvnLine = commands.get(0);
            Run build = run(project, maven(mvnLine, settings, local), BUILD_TIMEOUT);
            // Figures for the record (surefire's output file), not checked.
            System.out.printf("`%s` on an empty local repository: %d ms%n", mvnLine,
                    (System.nanoTime() - start) / 1_000_000);
            assertEquals(0, build.exit, "`" + mvnLine + "` failed in the guide's project (" + build.command + "):\n"
                    + build.output);
            assertFalse(build.output.contains("sun.misc.Unsafe"),
                    "`" + mvnLine + "` warned about sun.misc.Unsafe:\n" + build.output);
            assertEquals("", build.output.replace("\u001B", "ESC"), "`" + mvnLine + "` printed something");
            Path classFile = project.resolve("target/classes/com/example/ping/PingExample.class");
            assertEquals(44 + Integer.parseInt(pom.release), classVersion(classFile),
                    classFile + ": the class file version of release " + pom.release);
            assertResolvedFromRelease(local, pom.repositoryId, release);
            assertEquals(JARS.stream().map(a -> a + "-" + VERSION + ".jar").sorted().toList(),
                    fileNames(project.resolve("target/lib")), "target/lib: the runtime class path");
            for (String artifact : JARS) {
                String jar = artifact + "-" + VERSION + ".jar";
                Path copied = project.resolve("target/lib").resolve(jar);
                assertSameBytes(artifactDir(release, artifact).resolve(jar), copied);
            }
        } finally {
            removeView(plugins);
        }

        String javaLine = commands.get(1);
        assertTrue(javaLine.startsWith("java ") && javaLine.endsWith(" " + GUIDE_SOCKET),
                "the guide's second command runs java with the socket path " + GUIDE_SOCKET + " last: " + javaLine);
        Path socket = dir.resolve("grout.sock");
        try (GroutServer server = GroutServer.start(ServerOptions.defaults().socketPath(socket.toString()))) {
            String line = javaLine.substring(0, javaLine.length() - GUIDE_SOCKET.length())
                    + "'" + server.socketPath() + "'";
            Run run = run(project, List.of("bash", "-c", line), RUN_TIMEOUT);
            assertEquals(0, run.exit, "`" + line + "`:\n" + run.output);
            assertEquals(List.of(ANSWER), run.output.lines().toList(), "what `" + line + "` printed");
        }
    }

    /**
     * The fenced blocks that follow a marker line, by name; a marker not followed by a fence, or twice the same
     * name, fails.
     */
    static Map<String, String> projectBlocks(List<String> lines) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i).strip());
            if (!m.matches()) continue;
            String where = "docs/integrating.md:" + (i + 1) + ": ";
            assertTrue(i + 1 < lines.size() && lines.get(i + 1).startsWith("```"),
                    where + "a marker not followed by a ``` fence");
            StringBuilder text = new StringBuilder();
            int j = i + 2;
            for (; j < lines.size() && !lines.get(j).equals("```"); j++) text.append(lines.get(j)).append('\n');
            assertTrue(j < lines.size(), where + "the block is never closed");
            assertEquals(null, out.put(m.group(1), text.toString()), where + "a second block named " + m.group(1));
            i = j;
        }
        return out;
    }

    /** What the test takes from the guide's pom: the id of its sysframe repository, and its release. */
    private record GuidePom(String repositoryId, String release) {}

    /**
     * The pom's own checks: one repository, the release's directory; the BOM imported at this build's version and
     * sysframe-transport declared without one; every plugin of {@link #PLUGINS} at the version the root pom pins,
     * no other plugin; and the root pom's release.
     */
    private static GuidePom pomChecks(String pom) throws Exception {
        Document guide = xml(pom.getBytes(StandardCharsets.UTF_8));
        Document root = xml(Files.readAllBytes(ROOT.resolve("pom.xml")));
        Map<String, String> pinned = new TreeMap<>();
        for (Element p : elements(root, "plugin")) {
            if (!text(p, "version").isEmpty()) pinned.put(text(p, "artifactId"), text(p, "version"));
        }

        List<Element> repositories = elements(guide, "repository");
        assertEquals(1, repositories.size(), "the guide's pom: one <repository>, sysframe's");
        assertEquals(RELEASE_URL, text(repositories.getFirst(), "url"), "the guide's pom: the repository's url");
        String repositoryId = text(repositories.getFirst(), "id");
        assertFalse(repositoryId.isEmpty(), "the guide's pom: the repository's id");

        Map<String, Element> dependencies = new TreeMap<>();
        for (Element d : elements(guide, "dependency")) {
            assertEquals("org.sysframe", text(d, "groupId"), "the guide's pom: a dependency outside sysframe");
            dependencies.put(text(d, "artifactId"), d);
        }
        assertEquals(List.of("sysframe-bom", "sysframe-transport"), List.copyOf(dependencies.keySet()),
                "the guide's pom: its dependencies");
        Element bom = dependencies.get("sysframe-bom");
        assertEquals(List.of(VERSION, "pom", "import"), List.of(text(bom, "version"), text(bom, "type"),
                text(bom, "scope")), "the guide's pom: the BOM's version, type and scope");
        assertEquals("", text(dependencies.get("sysframe-transport"), "version"),
                "the guide's pom: sysframe-transport takes its version from the BOM");

        Map<String, String> shown = new TreeMap<>();
        for (Element p : elements(guide, "plugin")) {
            String version = text(p, "version");
            String before = version.isEmpty() ? shown.putIfAbsent(text(p, "artifactId"), "")
                    : shown.put(text(p, "artifactId"), version);
            assertTrue(before == null || before.isEmpty() || version.isEmpty(),
                    "the guide's pom pins " + text(p, "artifactId") + " twice");
        }
        Map<String, String> expected = new TreeMap<>();
        for (String plugin : PLUGINS) expected.put(plugin, assertPinned(pinned, plugin));
        assertEquals(expected, shown, "the guide's pom: its plugins and their versions, those of the root pom");

        String release = text(guide.getDocumentElement(), "maven.compiler.release");
        assertEquals(text(root.getDocumentElement(), "maven.compiler.release"), release,
                "the guide's pom: maven.compiler.release");
        return new GuidePom(repositoryId, release);
    }

    private static String assertPinned(Map<String, String> pinned, String plugin) {
        String version = pinned.get(plugin);
        assertNotNull(version, "the root pom pins no version of " + plugin + ": " + pinned);
        return version;
    }

    /** The local repository of this build (examples/pom.xml names it), which must hold this build's artifacts. */
    private static Path installedRepository() {
        String repo = System.getProperty("sysframe.maven.repo");
        assertNotNull(repo, "sysframe.maven.repo (set by examples/pom.xml): the local repository of this build");
        Path installed = Path.of(repo);
        for (String artifact : POMS) {
            Path pom = artifactDir(installed, artifact).resolve(artifact + "-" + VERSION + ".pom");
            assertTrue(Files.isRegularFile(pom), pom + ": not installed (mvn install first)");
        }
        for (String artifact : JARS) {
            Path jar = artifactDir(installed, artifact).resolve(artifact + "-" + VERSION + ".jar");
            assertTrue(Files.isRegularFile(jar), jar + ": not installed (mvn install first)");
        }
        return installed;
    }

    private static Path artifactDir(Path repository, String artifact) {
        return repository.resolve("org/sysframe").resolve(artifact).resolve(VERSION);
    }

    /**
     * Where Maven's plugins come from: view, the installed repository without {@code org/sysframe} (links to its
     * other directories), and a settings file whose mirror sends every network repository there. File repositories
     * (the guide's) are not mirrored. Returns the settings file.
     */
    private static Path pluginsOnly(Path installed, Path view, Path settings) throws IOException {
        Files.createDirectories(view.resolve("org"));
        try (Stream<Path> top = Files.list(installed); Stream<Path> org = Files.list(installed.resolve("org"))) {
            for (Path p : top.toList()) {
                if (!p.getFileName().toString().equals("org")) {
                    Files.createSymbolicLink(view.resolve(p.getFileName()), p);
                }
            }
            for (Path p : org.toList()) {
                if (!p.getFileName().toString().equals("sysframe")) {
                    Files.createSymbolicLink(view.resolve("org").resolve(p.getFileName()), p);
                }
            }
        }
        assertFalse(Files.exists(view.resolve("org/sysframe")), view + " leaves sysframe out");
        Files.writeString(settings, """
                <settings>
                  <mirrors>
                    <mirror>
                      <id>plugins</id>
                      <mirrorOf>external:*</mirrorOf>
                      <url>%s</url>
                    </mirror>
                  </mirrors>
                </settings>
                """.formatted(view.toUri()));
        return settings;
    }

    /** Removes the view's links (never what they point at), before the temporary directory goes. */
    private static void removeView(Path view) throws IOException {
        if (!Files.isDirectory(view)) return;
        List<Path> links = new ArrayList<>();
        try (Stream<Path> top = Files.list(view)) {
            links.addAll(top.filter(Files::isSymbolicLink).toList());
        }
        if (Files.isDirectory(view.resolve("org"))) {
            try (Stream<Path> org = Files.list(view.resolve("org"))) {
                links.addAll(org.filter(Files::isSymbolicLink).toList());
            }
        }
        for (Path link : links) Files.delete(link);
    }

    /**
     * The release of this build in release, a Maven repository: each installed pom and jar of {@link #POMS} and
     * {@link #JARS} at its place ({@code org/sysframe/ARTIFACT/VERSION/}), beside its SHA-1 and MD5, which Maven
     * checks as it downloads.
     */
    private static void publish(Path installed, Path release) throws Exception {
        for (String artifact : Stream.concat(POMS.stream(), JARS.stream()).toList()) {
            List<String> files = new ArrayList<>(List.of(artifact + "-" + VERSION + ".pom"));
            if (JARS.contains(artifact)) files.add(artifact + "-" + VERSION + ".jar");
            Path to = Files.createDirectories(artifactDir(release, artifact));
            for (String file : files) {
                byte[] bytes = Files.readAllBytes(artifactDir(installed, artifact).resolve(file));
                Files.write(to.resolve(file), bytes);
                for (String algorithm : List.of("SHA-1", "MD5")) {
                    String sum = HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
                    Files.writeString(to.resolve(file + "." + algorithm.replace("-", "").toLowerCase(Locale.ROOT)),
                            sum);
                }
            }
        }
    }

    /**
     * Every sysframe file of local (the guide's build's local repository) was downloaded from the guide's repository
     * (Maven's {@code _remote.repositories} says so) and is the release's, and they are the poms and jars expected.
     */
    private static void assertResolvedFromRelease(Path local, String repositoryId, Path release) throws IOException {
        Path sysframe = local.resolve("org/sysframe");
        Map<String, String> from = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> all = Files.walk(sysframe)) {
            files = all.filter(f -> f.toString().endsWith(".jar") || f.toString().endsWith(".pom")).toList();
        }
        for (Path file : files) {
            Path record = file.resolveSibling("_remote.repositories");
            assertTrue(Files.isRegularFile(record), file + ": no " + record.getFileName());
            String name = file.getFileName().toString();
            String line = Files.readAllLines(record).stream().filter(l -> l.startsWith(name + ">")).findFirst()
                    .orElseThrow(() -> new AssertionError(record + " does not say where " + name + " came from"));
            from.put(name, line.substring(name.length() + 1).replaceAll("=$", ""));
            assertSameBytes(release.resolve(local.relativize(file)), file);
        }
        Map<String, String> expected = new TreeMap<>();
        for (String artifact : POMS) expected.put(artifact + "-" + VERSION + ".pom", repositoryId);
        for (String artifact : JARS) {
            expected.put(artifact + "-" + VERSION + ".pom", repositoryId);
            expected.put(artifact + "-" + VERSION + ".jar", repositoryId);
        }
        assertEquals(expected, from, "the sysframe files of the guide's build's local repository, and the repository"
                + " each came from");
    }

    private static void assertSameBytes(Path expected, Path actual) throws IOException {
        assertTrue(Files.isRegularFile(expected), expected + ": missing");
        assertEquals(-1L, Files.mismatch(expected, actual), actual + " differs from " + expected);
    }

    private static List<String> fileNames(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
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

    /** The Maven running this build (examples/pom.xml names its home), else the mvn on the PATH. */
    private static String mavenExecutable() {
        String home = System.getProperty("sysframe.maven.home", "");
        Path mvn = Path.of(home, "bin", "mvn");
        return !home.isEmpty() && Files.isExecutable(mvn) ? mvn.toString() : "mvn";
    }

    /**
     * The guide's mvn line, with the Maven running this build, in batch mode, offline but for file repositories,
     * with the settings of {@link #pluginsOnly} and on local, an empty local repository (the options come before the
     * guide's own, which follow as they are).
     */
    private static List<String> maven(String line, Path settings, Path local) {
        List<String> words = Arrays.asList(line.strip().split(" +"));
        assertEquals("mvn", words.getFirst(), "the guide's first command runs mvn: " + line);
        assertFalse(line.contains("'") || line.contains("\""),
                "the guide's mvn command, taken word by word, has no quotes: " + line);
        List<String> command = new ArrayList<>(List.of(mavenExecutable(), "-B", "-o", "-Daether.offline.protocols=file",
                "-s", settings.toString(), "-Dmaven.repo.local=" + local));
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
        for (String options : List.of("MAVEN_OPTS", "JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")) {
            env.remove(options);
        }
        ProcessRun r = ProcessRun.of(pb, timeout);
        return new Run(command, r.exit(), r.output());
    }
}
