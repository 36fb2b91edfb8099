package org.sysframe.unix.internal.uring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sysframe.unix.GccLayouts;

import java.nio.file.Path;
import java.util.Map;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The io_uring layouts against what gcc lays out from the kernel's UAPI header installed here. */
class UringLayoutTest {
    private static final String PROBE = """
            #include <stdio.h>
            #include <stddef.h>
            #include <linux/io_uring.h>
            #define S(t) printf("%s=%zu\\n", #t, sizeof(struct t))
            #define O(t, f) printf("%s.%s=%zu\\n", #t, #f, offsetof(struct t, f))
            int main(void) {
                S(io_uring_params); O(io_uring_params, sq_entries); O(io_uring_params, cq_entries);
                O(io_uring_params, flags); O(io_uring_params, features); O(io_uring_params, sq_off);
                O(io_uring_params, cq_off);
                S(io_sqring_offsets); O(io_sqring_offsets, head); O(io_sqring_offsets, tail);
                O(io_sqring_offsets, ring_mask);
                O(io_sqring_offsets, ring_entries); O(io_sqring_offsets, flags); O(io_sqring_offsets, dropped);
                O(io_sqring_offsets, array);
                S(io_cqring_offsets); O(io_cqring_offsets, head); O(io_cqring_offsets, tail);
                O(io_cqring_offsets, ring_mask);
                O(io_cqring_offsets, ring_entries); O(io_cqring_offsets, overflow); O(io_cqring_offsets, cqes);
                O(io_cqring_offsets, flags);
                S(io_uring_sqe); O(io_uring_sqe, opcode); O(io_uring_sqe, flags); O(io_uring_sqe, ioprio);
                O(io_uring_sqe, fd);
                O(io_uring_sqe, off); O(io_uring_sqe, addr); O(io_uring_sqe, len); O(io_uring_sqe, msg_flags);
                O(io_uring_sqe, user_data); O(io_uring_sqe, buf_group); O(io_uring_sqe, personality);
                O(io_uring_sqe, file_index);
                O(io_uring_sqe, addr3);
                S(io_uring_cqe); O(io_uring_cqe, user_data); O(io_uring_cqe, res); O(io_uring_cqe, flags);
                S(io_uring_buf); O(io_uring_buf, addr); O(io_uring_buf, len); O(io_uring_buf, bid);
                S(io_uring_buf_ring); O(io_uring_buf_ring, tail);
                S(io_uring_buf_reg); O(io_uring_buf_reg, ring_addr); O(io_uring_buf_reg, ring_entries);
                O(io_uring_buf_reg, bgid);
                S(io_uring_probe); O(io_uring_probe, ops); S(io_uring_probe_op); O(io_uring_probe_op, flags);
                S(io_uring_getevents_arg); O(io_uring_getevents_arg, ts);
                S(io_uring_rsrc_update); O(io_uring_rsrc_update, data);
                return 0;
            }
            """;

    @Test
    void layoutsMatchTheKernelsUapiHeader(@TempDir Path dir) throws Exception {
        Map<String, Long> c = GccLayouts.of(dir, PROBE, 59);
        GccLayouts.assertStruct(c, "io_uring_params", UringLayouts.PARAMS, "sq_entries", "cq_entries", "flags",
                "features", "sq_off", "cq_off");
        GccLayouts.assertStruct(c, "io_sqring_offsets", UringLayouts.SQ_OFFSETS, "head", "tail", "ring_mask",
                "ring_entries", "flags", "dropped", "array");
        GccLayouts.assertStruct(c, "io_cqring_offsets", UringLayouts.CQ_OFFSETS, "head", "tail", "ring_mask",
                "ring_entries", "overflow", "cqes", "flags");
        GccLayouts.assertStruct(c, "io_uring_sqe", UringLayouts.SQE, "opcode", "flags", "ioprio", "fd", "off", "addr",
                "len", "user_data", "personality", "file_index", "addr3");
        // Union members under our names: msg_flags shares op_flags, buf_group shares buf_index.
        assertEquals(c.get("io_uring_sqe.msg_flags"), UringLayouts.SQE.byteOffset(groupElement("op_flags")));
        assertEquals(c.get("io_uring_sqe.buf_group"), UringLayouts.SQE.byteOffset(groupElement("buf_index")));
        GccLayouts.assertStruct(c, "io_uring_cqe", UringLayouts.CQE, "user_data", "res", "flags");
        GccLayouts.assertStruct(c, "io_uring_buf", UringLayouts.BUF, "addr", "len", "bid");
        assertEquals(c.get("io_uring_buf_ring"), UringLayouts.BUF.byteSize(), "sizeof(struct io_uring_buf_ring)");
        assertEquals(c.get("io_uring_buf_ring.tail"), 14L, "the buffer ring's tail overlays the first entry's resv");
        GccLayouts.assertStruct(c, "io_uring_buf_reg", UringLayouts.BUF_REG, "ring_addr", "ring_entries", "bgid");
        assertEquals(c.get("io_uring_probe"), UringLayouts.PROBE.byteSize());
        assertEquals(c.get("io_uring_probe.ops"), UringLayouts.PROBE.byteSize());
        GccLayouts.assertStruct(c, "io_uring_probe_op", UringLayouts.PROBE_OP, "flags");
        GccLayouts.assertStruct(c, "io_uring_getevents_arg", UringLayouts.GETEVENTS_ARG, "ts");
        GccLayouts.assertStruct(c, "io_uring_rsrc_update", UringLayouts.RSRC_UPDATE, "data");
        // The sizes the issue names, so that a wrong probe cannot pass silently.
        assertEquals(120, UringLayouts.PARAMS.byteSize());
        assertEquals(64, UringLayouts.SQE.byteSize());
        assertEquals(16, UringLayouts.CQE.byteSize());
        assertEquals(16, UringLayouts.BUF.byteSize());
    }
}
