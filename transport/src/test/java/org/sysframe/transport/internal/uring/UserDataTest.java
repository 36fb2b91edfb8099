package org.sysframe.transport.internal.uring;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The user_data codec: what goes in comes back, at every edge of kind and data; out of range is refused. */
class UserDataTest {
    private static final int[] KINDS = {0, 1, UserData.RECV, UserData.SEND, UserData.CANCEL, UserData.POLLOUT,
            UserData.SEND_SHORT, UserData.ACCEPT, UserData.WAKE, UserData.STOP, 0x7f, 0x80, 0xfe, 0xff};
    // slot and generation of a tag
    private static final long[] DATA = {0, 1, 0xff, 0xffff_ffffL, 1L << 32, (1L << 32) | 0x7fff_ffffL,
    Integer.MAX_VALUE, 1L << 55, (1L << 56) - 2, (1L << 56) - 1};

    @Test
    void everyKindAndDataAtTheEdgesComesBackAsItWent() {
        for (int kind : KINDS) {
            for (long data : DATA) {
                long ud = UserData.of(kind, data);
                assertEquals(kind, UserData.kind(ud), "kind of " + Long.toHexString(ud));
                assertEquals(data, UserData.data(ud), "data of " + Long.toHexString(ud));
            }
        }
    }

    @Test
    void theKindIsTheTopByteAndTheDataTheRest() {
        assertEquals(0xff00_0000_0000_0000L, UserData.of(0xff, 0));
        assertEquals(0x00ff_ffff_ffff_ffffL, UserData.of(0, UserData.MAX_DATA));
        assertEquals(0x0200_0000_0000_4e20L, UserData.of(UserData.SEND, 20_000));
        assertEquals(-1L, UserData.of(0xff, UserData.MAX_DATA));
    }

    @Test
    void aKindOrDataOutOfRangeIsRefusedNamingIt() {
        assertEquals("user_data kind 256: expected 0 to 255",
                assertThrows(IllegalArgumentException.class, () -> UserData.of(256, 0)).getMessage());
        assertEquals("user_data kind -1: expected 0 to 255",
                assertThrows(IllegalArgumentException.class, () -> UserData.of(-1, 0)).getMessage());
        assertEquals("user_data data 72057594037927936: expected 0 to 2^56 - 1",
                assertThrows(IllegalArgumentException.class, () -> UserData.of(1, 1L << 56)).getMessage());
        assertEquals("user_data data -1: expected 0 to 2^56 - 1",
                assertThrows(IllegalArgumentException.class, () -> UserData.of(1, -1)).getMessage());
    }
}
