package org.sysframe.transport.internal.server;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import java.util.stream.Stream;

/**
 * Loads, once per JVM, every class of the library that comes from a directory of the class path
 * (a build's {@code target/classes}, an IDE's output) rather than from a jar. A class in a directory
 * is read through a descriptor of its own when it is first loaded, so a server out of descriptors
 * would fail to load the classes of the paths it had not run yet (the first connection's, the first
 * error's), and a failed load breaks its call site for the rest of the JVM's life (JVMS 5.4.3: a
 * resolution error is thrown again at every later attempt). A jar is opened once and kept open, and
 * the JDK's classes are read from its mapped image: neither needs a descriptor to load a class.
 * Classes are loaded, not initialized.
 */
final class DirectoryClasses {
    private static boolean done; // guarded by the class

    private DirectoryClasses() {}

    /** Loads the classes of the directories that anchors came from (once). */
    static synchronized void load(List<Class<?>> anchors) {
        if (done) return;
        done = true;
        for (Class<?> anchor : anchors) {
            Path root = directoryOf(anchor);
            if (root != null) loadAll(root, anchor.getClassLoader());
        }
    }

    private static Path directoryOf(Class<?> c) {
        CodeSource source = c.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) return null;
        try {
            Path p = Path.of(source.getLocation().toURI());
            return Files.isDirectory(p) ? p : null;
        } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }

    private static void loadAll(Path root, ClassLoader loader) {
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f).toString())
                    .filter(n -> !n.endsWith("module-info.class") && !n.endsWith("package-info.class"))
                    .forEach(n -> load(n.substring(0, n.length() - ".class".length()).replace('/', '.'), loader));
        } catch (IOException | RuntimeException e) {
            // A directory that cannot be listed loads its classes when they are first used, as without this.
        }
    }

    private static void load(String name, ClassLoader loader) {
        try {
            Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            // not loadable here (an optional dependency missing): loaded on first use, or never
        }
    }
}
