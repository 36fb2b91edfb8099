package org.sysframe.examples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sysframe.testsupport.ProcessRun;
import org.sysframe.transport.wire.GroutApi;
import org.sysframe.transport.GroutClient;
import org.sysframe.transport.GroutServer;
import org.sysframe.transport.ServerOptions;
import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What docs/integrating.md tells an integrator, done for real: the complete client the guide shows verbatim
 * ({@code com.example.ping.PingExample}, in this module's test sources, so the build compiles it too) is
 * compiled again with this JDK's javac against the packaged jars, once on the class path and once as a
 * named module with {@code examples/src/module/module-info.java} (a source this test alone compiles), and
 * run in child JVMs of this JDK against a real server in this JVM,
 * under {@code --illegal-native-access=deny}: with the grant the guide gives it prints the echo and exits
 * 0; without it the JDK refuses the first downcall with IllegalCallerException.
 */
class IntegrationExampleTest {
    private static final Path ROOT = Path.of(System.getProperty("sysframe.root", "..")).toAbsolutePath().normalize();
    /** The complete client: a test source of this module, so {@code mvn test-compile} compiles it as well. */
    static final Path PING_EXAMPLE = ROOT.resolve("examples/src/test/java/com/example/ping/PingExample.java");
    /**
     * The integrator's module declaration: outside the test sources (it would make them a module); compiled here only.
     */
    static final Path MODULE_INFO = ROOT.resolve("examples/src/module/module-info.java");
    private static final Path GUIDE = ROOT.resolve("docs/integrating.md");
    private static final String MAIN_CLASS = "com.example.ping.PingExample";
    private static final String MODULE = "com.example.ping";
    private static final String TEXT = "ping from a child JVM";
    private static final String ANSWER = "GR_PING answered " + TEXT.length() + " bytes: " + TEXT;
    private static final String DENIED = "java.lang.IllegalCallerException: Illegal native access from ";
    /** --illegal-native-access exists from JDK 24 on (JEP 472); JDK 22 and 23 know only the grant. */
    private static final boolean DENY_KNOWN = Runtime.version().feature() >= 24;

    private static Path work;
    private static Path bindingsJar, transportJar;
    private static Path classPathBuild, moduleBuild;
    private static GroutServer server, refusing;

    @BeforeAll
    static void compileTheExampleAndStartServers() throws Exception {
        bindingsJar = codeSource(ErrnoException.class);
        transportJar = codeSource(GroutClient.class);
        assumeTrue(bindingsJar.toString().endsWith(".jar") && transportJar.toString().endsWith(".jar"),
                "the example runs against the packaged jars, and these are class directories (" + bindingsJar + ", "
                        + transportJar + "): run it through mvn verify");
        for (Path jar : List.of(bindingsJar, transportJar)) {
            assertTrue(hasModuleDescriptor(jar),
                    jar + " has no module-info.class: a jar from before the modules (a local repository's snapshot?); "
                            + "build it in the same run (-am)");
        }
        work = Files.createTempDirectory("sysframe-examples");

        classPathBuild = work.resolve("cp-classes");
        javac("-d", classPathBuild.toString(), "-cp", bindingsJar + ":" + transportJar,
                PING_EXAMPLE.toString());

        // As an integrator's module: module-info.java at the root, the class under its package's directory.
        Path src = work.resolve("module-src");
        Path pkg = Files.createDirectories(src.resolve("com/example/ping"));
        Files.copy(MODULE_INFO, src.resolve("module-info.java"));
        Files.copy(PING_EXAMPLE, pkg.resolve("PingExample.java"));
        moduleBuild = work.resolve("module-classes");
        javac("-d", moduleBuild.toString(), "--module-path", bindingsJar + ":" + transportJar,
                src.resolve("module-info.java").toString(), pkg.resolve("PingExample.java").toString());

        server = GroutServer.start(ServerOptions.defaults().socketPath(work.resolve("echo.sock").toString()));
        refusing = GroutServer.start(ServerOptions.defaults().socketPath(work.resolve("refusing.sock").toString())
                .handle(GroutApi.PING, 0, (request, reply) -> reply.error(Errno.EPERM)));
    }

    @AfterAll
    static void stopServers() throws IOException {
        if (server != null) server.close();
        if (refusing != null) refusing.close();
        if (work != null) {
            try (var files = Files.walk(work)) {
                for (Path p : files.sorted((a, b) -> b.compareTo(a)).toList()) Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void theGuideShowsTheExampleFilesVerbatim() throws IOException {
        String guide = Files.readString(GUIDE);
        for (Path file : List.of(PING_EXAMPLE, MODULE_INFO)) {
            String text = Files.readString(file);
            assertTrue(guide.contains("```java\n" + text + "```\n"),
                    "docs/integrating.md shows " + ROOT.relativize(file) + " whole and verbatim in a ```java block");
        }
    }

    @Test
    void theJarsAreTheModulesTheGuideNames() {
        ModuleFinder jars = ModuleFinder.of(bindingsJar, transportJar);
        ModuleDescriptor unix = jars.find("org.sysframe.unix").orElseThrow().descriptor();
        assertFalse(unix.isAutomatic() || unix.isOpen());
        assertEquals(Set.of("org.sysframe.unix", "org.sysframe.unix.uring", "org.sysframe.unix.internal",
                "org.sysframe.unix.internal.uring"), unix.packages());
        assertEquals(Set.of("org.sysframe.unix", "org.sysframe.unix.uring"), unqualifiedExports(unix),
                "org.sysframe.unix.internal(.uring) is not exported to all");
        assertEquals(Set.of("org.sysframe.transport"),
                unix.exports().stream().filter(e -> e.source().equals("org.sysframe.unix.internal.uring"))
                .flatMap(e -> e.targets().stream()).collect(Collectors.toSet()),
                        "the ring is exported to the transport alone");
        assertEquals(Set.of(), unix.opens());
        assertEquals(Set.of("java.base"), names(unix.requires()));

        ModuleDescriptor transport = jars.find("org.sysframe.transport").orElseThrow().descriptor();
        assertFalse(transport.isAutomatic() || transport.isOpen());
        assertEquals(Set.of("org.sysframe.transport", "org.sysframe.transport.wire",
                "org.sysframe.transport.internal.io",
                "org.sysframe.transport.internal.client", "org.sysframe.transport.internal.server",
                        "org.sysframe.transport.internal.epoll",
                "org.sysframe.transport.internal.uring", "org.sysframe.transport.internal.shm",
                        "org.sysframe.transport.internal.jfr",
                "org.sysframe.transport.internal.lookup"), transport.packages());
        assertEquals(Set.of("org.sysframe.transport", "org.sysframe.transport.wire"), unqualifiedExports(transport),
                "the internals are not exported");
        assertEquals(Set.of("java.base", "org.sysframe.unix", "jdk.jfr"), names(transport.requires()));
        assertTrue(transport.requires().stream().anyMatch(r -> r.name().equals("org.sysframe.unix")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)),
                "requires transitive org.sysframe.unix");
    }

    /**
     * The guide's claim that only org.sysframe.unix needs the grant, for every class and not only the paths run here.
     */
    @Test
    void onlyNativeBindingsCallsRestrictedMethods() throws Exception {
        assertEquals(Set.of(), restrictedCalls(transportJar), "restricted calls in the transport jar");
        Set<String> inBindings = restrictedCalls(bindingsJar);
        assertTrue(inBindings.contains("java/lang/foreign/Linker.downcallHandle"),
                "the scan finds native-bindings' downcalls: " + inBindings);
    }

    @Test
    void onTheClassPathWithTheGrantForAllUnnamed() throws Exception {
        Run run = java(deny("--enable-native-access=ALL-UNNAMED",
                "-cp", classPath(classPathBuild), MAIN_CLASS, server.socketPath(), TEXT));
        assertEquals(0, run.exit, run.output);
        assertEquals(ANSWER, run.output.strip());
    }

    @Test
    void onTheModulePathWithTheGrantForOrgSysframeUnixAlone() throws Exception {
        Run run = java(deny("--enable-native-access=org.sysframe.unix",
                "--module-path", modulePath(), "-m", MODULE + "/" + MAIN_CLASS, server.socketPath(), TEXT));
        assertEquals(0, run.exit, run.output);
        assertEquals(ANSWER, run.output.strip());
    }

    @Test
    void onTheClassPathWithoutTheGrantTheJdkDenies() throws Exception {
        assumeTrue(DENY_KNOWN, "--illegal-native-access=deny needs JDK 24 or later, this is " + Runtime.version());
        Run run = java(deny("-cp", classPath(classPathBuild), MAIN_CLASS, server.socketPath(), TEXT));
        assertDenied(run, "an unnamed module (file:" + bindingsJar);
    }

    @Test
    void onTheModulePathWithoutTheGrantOrWithTheClassPathOneTheJdkDenies() throws Exception {
        assumeTrue(DENY_KNOWN, "--illegal-native-access=deny needs JDK 24 or later, this is " + Runtime.version());
        for (List<String> grant : List.of(List.<String>of(), List.of("--enable-native-access=ALL-UNNAMED"))) {
            List<String> args = new ArrayList<>(grant);
            args.addAll(List.of("--module-path", modulePath(), "-m", MODULE + "/" + MAIN_CLASS, server.socketPath(),
                    TEXT));
            assertDenied(java(deny(args.toArray(String[]::new))), "module org.sysframe.unix (file:" + bindingsJar);
        }
    }

    /** The launcher reads Enable-Native-Access from an executable jar's manifest (java -jar), and only there. */
    @Test
    void anExecutableJarGrantsItselfThroughItsManifest() throws Exception {
        Path app = Files.createDirectories(work.resolve("app"));
        Path lib = Files.createDirectories(app.resolve("lib"));
        Files.copy(bindingsJar, lib.resolve(bindingsJar.getFileName()));
        Files.copy(transportJar, lib.resolve(transportJar.getFileName()));
        String manifest = "Main-Class: " + MAIN_CLASS + "\n"
                + "Class-Path: lib/" + transportJar.getFileName() + " lib/" + bindingsJar.getFileName() + "\n";
        Path granted = jar(app.resolve("ping.jar"), manifest + "Enable-Native-Access: ALL-UNNAMED\n");
        Run run = java(deny("-jar", granted.toString(), server.socketPath(), TEXT));
        assertEquals(0, run.exit, run.output);
        assertEquals(ANSWER, run.output.strip());

        if (DENY_KNOWN) {
            Path plain = jar(app.resolve("ping-without-attribute.jar"), manifest);
            assertDenied(java(deny("-jar", plain.toString(), server.socketPath(), TEXT)), "an unnamed module");
        }
    }

    @Test
    void theExampleReportsTheErrnoOfACallAndTheStatusOfTheServer() throws Exception {
        Path missing = work.resolve("nobody-listens.sock");
        Run run = java(deny("--enable-native-access=ALL-UNNAMED", "-cp", classPath(classPathBuild), MAIN_CLASS,
                missing.toString()));
        assertEquals(1, run.exit, run.output);
        assertEquals("connect(" + missing + ") failed: ENOENT (No such file or directory)", run.output.strip());

        run = java(deny("--enable-native-access=ALL-UNNAMED", "-cp", classPath(classPathBuild), MAIN_CLASS,
                refusing.socketPath()));
        assertEquals(1, run.exit, run.output);
        assertEquals("GR_PING refused by the server: status 1 EPERM (Operation not permitted)", run.output.strip());
    }

    private record Run(int exit, String output) {}

    private static void assertDenied(Run run, String from) {
        assertNotEquals(0, run.exit, run.output);
        assertTrue(run.output.contains(DENIED + from), "the JDK's refusal (" + DENIED + from + "...) in:\n"
                + run.output);
        assertFalse(run.output.contains(ANSWER), run.output);
    }

    /** --illegal-native-access=deny (where the JDK knows it), then args. */
    private static List<String> deny(String... args) {
        List<String> all = new ArrayList<>();
        if (DENY_KNOWN) all.add("--illegal-native-access=deny");
        all.addAll(Arrays.asList(args));
        return all;
    }

    /** A child JVM of this JDK (java.home), its stdout and stderr merged. */
    private static Run java(List<String> args) throws Exception {
        return tool("java", args);
    }

    private static Run tool(String name, List<String> args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", name).toString());
        command.addAll(args);
        ProcessRun r = ProcessRun.of(new ProcessBuilder(command), Duration.ofSeconds(60));
        return new Run(r.exit(), r.output());
    }

    /** This JDK's javac (java.home/bin) in a child process, so that nothing of the test's class path leaks in. */
    private static void javac(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--release", "22", "-Xlint:all", "-Werror"));
        all.addAll(Arrays.asList(args));
        Run run = tool("javac", all);
        assertEquals(0, run.exit, "javac " + all + "\n" + run.output);
    }

    private static Path jar(Path file, String manifest) throws IOException {
        Path mf = Files.writeString(work.resolve(file.getFileName() + ".mf"), manifest);
        ToolProvider jar = ToolProvider.findFirst("jar").orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
        int rc = jar.run(ps, ps, "--create", "--file", file.toString(), "--manifest", mf.toString(), "-C",
                classPathBuild.toString(), ".");
        assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
        return file;
    }

    private static String classPath(Path classes) {
        return classes + ":" + transportJar + ":" + bindingsJar;
    }

    private static String modulePath() {
        return moduleBuild + ":" + transportJar + ":" + bindingsJar;
    }

    private static Path codeSource(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static boolean hasModuleDescriptor(Path jar) {
        try {
            return ModuleFinder.of(jar).findAll().stream().noneMatch(m -> m.descriptor().isAutomatic());
        } catch (FindException e) {
            return false; // not even an automatic module (sysframe-native-bindings: "native" is a keyword)
        }
    }

    private static Set<String> unqualifiedExports(ModuleDescriptor d) {
        return d.exports().stream().filter(e -> !e.isQualified()).map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
    }

    private static Set<String> names(Set<ModuleDescriptor.Requires> requires) {
        return requires.stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
    }

    // The restricted methods of java.base (JDK 22-25), as javap prints their owner and name, and native methods.
    private static final Pattern RESTRICTED = Pattern.compile(
            "Method (java/lang/foreign/Linker\\.(?:downcallHandle|upcallStub)"
                    + "|java/lang/foreign/MemorySegment\\.reinterpret"
                    + "|java/lang/foreign/AddressLayout\\.withTargetLayout"
                    + "|java/lang/foreign/SymbolLookup\\.libraryLookup"
                    + "|java/lang/ModuleLayer\\$Controller\\.enableNativeAccess"
                    + "|java/lang/(?:System|Runtime)\\.load(?:Library)?):"
                    + "|^  [a-z ]*\\bnative\\b[^/]*\\);$");

    /** The restricted methods (and native method declarations) in a jar's classes, as javap reads them. */
    private static Set<String> restrictedCalls(Path jar) throws Exception {
        List<String> classes;
        try (JarFile j = new JarFile(jar.toFile())) {
            classes = j.stream().map(e -> e.getName())
                    .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.')).toList();
        }
        assertFalse(classes.isEmpty(), "classes in " + jar);
        List<String> args = new ArrayList<>(List.of("-c", "-p", "-cp", jar.toString()));
        args.addAll(classes);
        ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
        assertEquals(0, javap.run(ps, ps, args.toArray(String[]::new)), out.toString(StandardCharsets.UTF_8));
        Set<String> found = new TreeSet<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            Matcher m = RESTRICTED.matcher(line);
            if (m.find()) found.add(m.group(1) != null ? m.group(1) : "native method: " + line.strip());
        }
        return found;
    }
}
