package org.sysframe.testsupport;

/** Lets the GC free what automatic arenas and direct buffers hold before native memory is read. */
public final class Gc {
    private Gc() {}

    /** Three rounds of System.gc() and a 100 ms pause (cleaners run on their own thread). */
    public static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }
}
