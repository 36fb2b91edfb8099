package org.sysframe.unix.internal.uring;

import org.sysframe.unix.Errno;
import org.sysframe.unix.ErrnoException;
import org.sysframe.unix.uring.UringOp;
import org.sysframe.unix.uring.UringSupport;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** Which io_uring opcodes the running kernel supports, as IORING_REGISTER_PROBE reported them. */
public final class UringProbe {
    private static final int OP_SUPPORTED = 1;

    private final boolean[] supported = new boolean[UringOp.LIMIT];
    private final int lastOp;

    private UringProbe(int lastOp) {
        this.lastOp = lastOp;
    }

    static UringProbe read(MemorySegment p) {
        int last = Byte.toUnsignedInt(p.get(JAVA_BYTE, UringLayouts.offset(UringLayouts.PROBE, "last_op")));
        int len = Byte.toUnsignedInt(p.get(JAVA_BYTE, UringLayouts.offset(UringLayouts.PROBE, "ops_len")));
        UringProbe probe = new UringProbe(last);
        long base = UringLayouts.PROBE.byteSize();
        long flags = UringLayouts.offset(UringLayouts.PROBE_OP, "flags");
        long opOff = UringLayouts.offset(UringLayouts.PROBE_OP, "op");
        for (int i = 0; i < len; i++) {
            long at = base + i * UringLayouts.PROBE_OP.byteSize();
            int op = Byte.toUnsignedInt(p.get(JAVA_BYTE, at + opOff));
            if (op < UringOp.LIMIT && (p.get(JAVA_SHORT, at + flags) & OP_SUPPORTED) != 0) probe.supported[op] = true;
        }
        return probe;
    }

    /** Whether the kernel supports op. */
    public boolean supports(UringOp op) { return supported[op.code()]; }

    /** The highest opcode the kernel knows. */
    public int lastOp() { return lastOp; }

    /** Fails with ENOTSUP naming the first op missing and the Linux release that has it. */
    public void require(UringOp... ops) throws ErrnoException {
        for (UringOp op : ops) {
            if (!supports(op)) {
                throw new ErrnoException("io_uring probe", Errno.ENOTSUP, "this kernel (" + UringSupport.kernelRelease()
                        + ") does not support IORING_OP_" + op.name() + ", which needs Linux " + op.since());
            }
        }
    }
}
