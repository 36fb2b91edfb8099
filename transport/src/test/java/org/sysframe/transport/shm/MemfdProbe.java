package org.sysframe.transport.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** This process's memfd descriptors and mappings (the JVM's own come and go; these are ours alone). */
final class MemfdProbe {
    private MemfdProbe() {}

    /** Lines of /proc/self/maps that map a memfd. */
    static long mappings() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains("/memfd:")).count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Descriptors of /proc/self/fd that are memfds. */
    static long descriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).toString().startsWith("/memfd:");
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            }).count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
