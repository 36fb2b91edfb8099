package org.sysframe.transport.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * This process's descriptors and mappings of channel segments (memfds named {@code sysframe-shm}; a
 * server's spare descriptor is a memfd too, of another name, held while it runs).
 */
final class MemfdProbe {
    private static final String SEGMENT = "/memfd:sysframe-shm";

    private MemfdProbe() {}

    /** Lines of /proc/self/maps that map a channel segment. */
    static long mappings() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains(SEGMENT)).count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Descriptors of /proc/self/fd that are channel segments. */
    static long descriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).toString().startsWith(SEGMENT);
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            }).count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
