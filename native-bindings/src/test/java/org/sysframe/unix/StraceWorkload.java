package org.sysframe.unix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Child-process workload for {@link StraceCrossCheckTest}: 1000 split messages over a socketpair,
 * sender on main, receiver on a second thread; prints the library's counts of both threads.
 */
public final class StraceWorkload {
    public static void main(String[] args) throws Exception {
        UnixSocket[] pair = UnixSocket.pair();
        int frame = 12 + 32;
        Thread receiver = new Thread(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(1024);
                long total = 0;
                while (total < 1000L * frame) {
                    long n = pair[1].recv(buf, 0, 1024, 0);
                    if (n <= 0) throw new IllegalStateException("EOF after " + total);
                    total += n;
                }
            } catch (ErrnoException e) {
                throw new IllegalStateException(e);
            }
        });
        receiver.start();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment header = a.allocate(12);
            MemorySegment payload = a.allocate(32);
            for (int m = 0; m < 1000; m++) {
                pair[0].sendFully(header, 0, 12);
                pair[0].sendFully(payload, 0, 32);
            }
        }
        receiver.join();
        System.out.println("sender " + pair[0].counters().snapshot());
        System.out.println("receiver " + pair[1].counters().snapshot());
        pair[0].close();
        pair[1].close();
    }
}
