package org.sysframe.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Waits until a server's loop thread is blocked in epoll_wait. The library counts a call when it
 * returns and the kernel when it enters, so the two agree over a window that starts and ends while
 * the loop is parked in the same kind of call.
 */
final class ServerIdle {
    private ServerIdle() {}

    private static final String EPOLL_WAIT = "232";   // x86-64 syscall numbers
    private static final String EPOLL_PWAIT = "281";

    static void await(GroutServer s) throws IOException, InterruptedException {
        Path syscall = Path.of("/proc/self/task/" + s.loopThreadId() + "/syscall");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            String nr = Files.readString(syscall).split(" ", 2)[0].trim();
            if (nr.equals(EPOLL_WAIT) || nr.equals(EPOLL_PWAIT)) return;
            Thread.sleep(1);
        }
        throw new AssertionError("server loop not idle in epoll_wait after 10 s: " + Files.readString(syscall));
    }
}
