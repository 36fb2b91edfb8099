package org.sysframe.bench;

import org.sysframe.unix.KernelSyscallCounter;
import org.sysframe.unix.SyscallCounts;
import org.sysframe.unix.UnixSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** The {@code ./sysframe} command line. */
public final class Main {
    public static void main(String[] args) throws Exception {
        String cmd = args.length == 0 ? "demo" : args[0];
        if (!cmd.equals("demo")) {
            System.err.println("usage: sysframe demo");
            System.exit(2);
        }
        demo();
    }

    /** 1000 header+payload messages over a socketpair, counted by the library and the kernel. */
    static void demo() throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        try (Arena a = Arena.ofConfined(); KernelSyscallCounter k = KernelSyscallCounter.forCurrentThread()) {
            MemorySegment buf = a.allocate(44);
            SyscallCounts k0 = k.read();
            for (int i = 0; i < 1000; i++) {
                pair[0].sendFully(buf, 0, 12);
                pair[0].sendFully(buf, 12, 32);
                pair[1].recvFully(buf, 0, 44);
            }
            SyscallCounts kernel = k.read().minus(k0);
            System.out.println("1000 x (12+32 B) split send, exact recv on one thread:");
            System.out.println("  library: " + pair[0].counters().snapshot().plus(pair[1].counters().snapshot()));
            System.out.println("  kernel:  " + kernel);
        } finally {
            pair[0].close();
            pair[1].close();
        }
    }
}
